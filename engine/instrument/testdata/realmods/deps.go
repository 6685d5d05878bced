// Package realmods exists to require, at fixed versions, the published concurrency-heavy
// modules whose own tests TestRealModules runs under interleave test (see
// ../../realmods_test.go): worker pools, caches with janitors, rate limiters, errgroup-style
// libraries, a circuit breaker, backoff, an event bus, a stream multiplexer over net.Pipe, and an RPC framework whose shared test
// helper dispatches test methods by reflection.
package realmods

import (
	_ "github.com/alitto/pond/v2"
	_ "github.com/asaskevich/EventBus"
	_ "github.com/cenkalti/backoff/v4"
	_ "github.com/gammazero/workerpool"
	_ "github.com/hashicorp/golang-lru/v2"
	_ "github.com/jellydator/ttlcache/v3"
	_ "github.com/libp2p/go-yamux/v5"
	_ "github.com/panjf2000/ants/v2"
	_ "github.com/patrickmn/go-cache"
	_ "github.com/sony/gobreaker"
	_ "github.com/sourcegraph/conc"
	_ "go.uber.org/ratelimit"
	_ "golang.org/x/time/rate"
	_ "google.golang.org/grpc"
)
