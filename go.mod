module github.com/politecrawl/politecrawl

go 1.26.0

require (
	github.com/PuerkitoBio/goquery v1.13.0
	github.com/spf13/cobra v1.10.2
	go.etcd.io/bbolt v1.5.0
	golang.org/x/net v0.62.0
	golang.org/x/time v0.16.0
)

require (
	github.com/andybalholm/cascadia v1.3.4 // indirect
	github.com/inconshreveable/mousetrap v1.1.0 // indirect
	github.com/spf13/pflag v1.0.10 // indirect
	golang.org/x/sys v0.49.0 // indirect
	golang.org/x/text v0.43.0 // indirect
)
