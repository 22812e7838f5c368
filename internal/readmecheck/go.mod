module github.com/evsync/evsync/internal/readmecheck

go 1.26.0
