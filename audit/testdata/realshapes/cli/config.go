package main

// Config is read from config.yml; flags override it.
type Config struct {
	Model      string `yaml:"model" env:"ASK_MODEL"`
	MaxRetries int    `yaml:"max-retries" env:"ASK_MAX_RETRIES"`
	Timeout    int    `yaml:"timeout-seconds"`
}
