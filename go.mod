module github.com/burnrate-dev/burnrate

go 1.26

require (
	github.com/BurntSushi/toml v1.6.0
	github.com/guptarohit/asciigraph v0.10.0
	github.com/spf13/cobra v1.10.2
	github.com/valyala/fastjson v1.6.10
)

require (
	github.com/inconshreveable/mousetrap v1.1.0 // indirect
	github.com/spf13/pflag v1.0.9 // indirect
)
