module example.com/summarise

go 1.22

require github.com/avast/retry-go/v4 v4.6.0
