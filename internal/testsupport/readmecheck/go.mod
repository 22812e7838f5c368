module github.com/evsync/evsync/internal/testsupport/readmecheck

go 1.26.0
