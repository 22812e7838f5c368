module github.com/evsync/evsync

go 1.26
