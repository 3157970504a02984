module github.com/skillroute/skillroute

go 1.26.8

require (
	github.com/dlclark/regexp2 v1.12.0
	github.com/go-ego/gse v0.80.3
	github.com/gofrs/flock v0.13.2
	github.com/kljensen/snowball v0.10.0
	github.com/stretchr/testify v1.12.1
	gopkg.in/yaml.v3 v3.0.1
)

require (
	github.com/vcaesar/cedar v0.20.2 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
	golang.org/x/sys v0.49.0 // indirect
)
