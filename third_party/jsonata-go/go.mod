module github.com/xiatechs/jsonata-go

go 1.20

require (
	github.com/goccy/go-json v0.10.2
	github.com/ncruces/go-strftime v0.1.9
	github.com/shopspring/decimal v1.3.1
	github.com/stretchr/testify v1.8.0
)

require (
	github.com/davecgh/go-spew v1.1.1 // indirect
	github.com/pmezard/go-difflib v1.0.0 // indirect
	gopkg.in/yaml.v3 v3.0.1 // indirect
)
