module example.com/gosvc

go 1.24

require github.com/hashicorp/go-retryablehttp v0.7.7
