module github.com/skillroute/skillroute

go 1.26.8

require (
	github.com/bmatcuk/doublestar/v4 v4.10.4
	github.com/dlclark/regexp2 v1.12.0
	github.com/go-ego/gse v0.80.3
	github.com/gofrs/flock v0.13.2
	github.com/kljensen/snowball v0.10.0
	github.com/stretchr/testify v1.12.1
	github.com/tidwall/gjson v1.20.4
	github.com/tidwall/sjson v1.2.9
	golang.org/x/sys v0.49.0
	gopkg.in/yaml.v3 v3.0.1
)

require (
	github.com/tidwall/match v1.1.1 // indirect
	github.com/tidwall/pretty v1.3.0 // indirect
	github.com/vcaesar/cedar v0.20.2 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
)
