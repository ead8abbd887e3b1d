module example.com/gosvc

go 1.22

require github.com/anthropics/anthropic-sdk-go v1.60.0
