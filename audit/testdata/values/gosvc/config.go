package gosvc

// defaultRetryMax is what a deployment without RETRY_MAX gets.
const defaultRetryMax = 6

// maxTries bounds the batch upload's own loop (batch.go).
const maxTries = 4
