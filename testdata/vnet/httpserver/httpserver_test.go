package httpserver

import (
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// get requests url with client and returns the body.
func get(t *testing.T, client *http.Client, url string) string {
	resp, err := client.Get(url)
	if err != nil {
		t.Errorf("get %s: %v", url, err)
		return ""
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Errorf("read the body of %s: %v", url, err)
	}
	return string(b)
}

// TestLostHit: two concurrent requests to Counter; the count after both is 2, unless their
// handlers interleave between the read and the write of the count.
func TestLostHit(t *testing.T) {
	c := &Counter{}
	ts := httptest.NewServer(c)
	defer ts.Close()
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			get(t, ts.Client(), ts.URL)
		}()
	}
	wg.Wait()
	if c.Hits() != 2 {
		t.Errorf("%d hits counted after 2 requests", c.Hits())
	}
}

// TestLockedHits: the same with LockedCounter, over the default client: no hit is lost.
func TestLockedHits(t *testing.T) {
	c := &LockedCounter{}
	ts := httptest.NewServer(c)
	defer ts.Close()
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			get(t, http.DefaultClient, ts.URL)
		}()
	}
	wg.Wait()
	if c.Hits() != 2 {
		t.Errorf("%d hits counted after 2 requests", c.Hits())
	}
}
