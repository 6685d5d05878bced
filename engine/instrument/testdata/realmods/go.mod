module example.com/realmods

go 1.26.0

require (
	github.com/alitto/pond/v2 v2.7.1
	github.com/asaskevich/EventBus v0.0.0-20200907212545-49d423059eef
	github.com/benbjohnson/clock v1.3.0
	github.com/cenkalti/backoff/v4 v4.3.0
	github.com/gammazero/deque v1.2.2
	github.com/gammazero/workerpool v1.3.0
	github.com/hashicorp/golang-lru/v2 v2.0.7
	github.com/jellydator/ttlcache/v3 v3.4.1
	github.com/panjf2000/ants/v2 v2.12.1
	github.com/patrickmn/go-cache v2.1.0+incompatible
	github.com/sony/gobreaker v1.0.0
	github.com/sourcegraph/conc v0.3.0
	go.uber.org/ratelimit v0.3.1
	golang.org/x/sync v0.23.0
	golang.org/x/time v0.16.0
	google.golang.org/grpc v1.85.0
)

require (
	github.com/libp2p/go-buffer-pool v0.0.2 // indirect
	github.com/libp2p/go-yamux/v5 v5.1.0 // indirect
	golang.org/x/net v0.60.0 // indirect
	golang.org/x/sys v0.48.0 // indirect
	golang.org/x/text v0.42.0 // indirect
	google.golang.org/genproto/googleapis/rpc v0.0.0-20260817212433-ac3dfec99bb1 // indirect
	google.golang.org/protobuf v1.36.12 // indirect
)
