package gosvc

// defaultRetryMax is what a deployment without RETRY_MAX gets.
const defaultRetryMax = 6
