module example.com/consumer

go 1.26.0
