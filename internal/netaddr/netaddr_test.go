package netaddr

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Asserts that loopback addresses and names are not exposed, that wildcards and other
// interfaces' addresses are (saying which), and that an address that is no host:port is an
// error.
func TestExposed(t *testing.T) {
	for _, tc := range []struct {
		addr     string
		wildcard bool
		ip       string
	}{
		{addr: "127.0.0.1:2222"},
		{addr: "[::1]:2222"},
		{addr: "localhost:2222"},
		{addr: "127.8.9.10:0"},
		{addr: ":2222", wildcard: true},
		{addr: "0.0.0.0:2222", wildcard: true},
		{addr: "[::]:2222", wildcard: true},
		{addr: "192.0.2.7:2222", ip: "192.0.2.7"},
		{addr: "[2001:db8::1]:22", ip: "2001:db8::1"},
	} {
		t.Run(tc.addr, func(t *testing.T) {
			e, err := Exposed(context.Background(), tc.addr)
			require.NoError(t, err)
			if !tc.wildcard && tc.ip == "" {
				assert.Nil(t, e)
				return
			}
			require.NotNil(t, e)
			assert.Equal(t, tc.wildcard, e.Wildcard)
			if tc.ip != "" {
				assert.Equal(t, tc.ip, e.IP.String())
			}
		})
	}
	_, err := Exposed(context.Background(), "no-port")
	assert.Error(t, err)
}

// Asserts that a listener on one address is reachable at that address only, and one on a
// wildcard at every interface's (loopback among them), of its families.
func TestListening(t *testing.T) {
	addrs, covers := Listening("127.0.0.1:2222")
	assert.Equal(t, []string{"127.0.0.1:2222"}, addrs)
	assert.Empty(t, covers)
	addrs, covers = Listening("0.0.0.0:2222")
	assert.Contains(t, addrs, "127.0.0.1:2222")
	assert.Equal(t, "every IPv4 interface", covers)
	for _, a := range addrs {
		assert.NotContains(t, a, "[", "IPv4 only: %s", a)
	}
}
