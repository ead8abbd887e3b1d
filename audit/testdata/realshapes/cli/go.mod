module example.com/askcli

go 1.22

require (
	github.com/anthropics/anthropic-sdk-go v1.26.0
	github.com/cohere-ai/cohere-go/v2 v2.16.2
)
