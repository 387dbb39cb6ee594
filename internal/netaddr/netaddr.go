// Package netaddr tells whether an address to listen on is reachable from this machine only
// (loopback) or from others too: a wildcard (0.0.0.0, [::], an empty host), another
// interface's address, or a name that resolves to one. The commands that listen (target,
// serve) refuse the second kind unless told otherwise. It uses the standard library only; its
// functions are safe for concurrent use.
package netaddr

import (
	"context"
	"fmt"
	"net"
	"time"
)

// Exposure is what other machines could reach of an address: every interface (Wildcard), or
// one address that is not loopback (IP).
type Exposure struct {
	Wildcard bool   // the host is empty, 0.0.0.0 or [::]: every interface, IPv4 and IPv6
	IP       net.IP // otherwise the first address of the host that is not loopback
}

// resolveTimeout bounds the lookup of a host name.
const resolveTimeout = 2 * time.Second

// Exposed returns nil when every address that addr (host:port) stands for is a loopback one,
// and otherwise what other machines could reach. A host name is resolved (within 2 s and ctx);
// failing to resolve it, or an addr that is no host:port, is an error.
func Exposed(ctx context.Context, addr string) (*Exposure, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	var ips []net.IP
	if ip := net.ParseIP(host); ip != nil || host == "" {
		ips = []net.IP{ip}
	} else {
		ctx, cancel := context.WithTimeout(ctx, resolveTimeout)
		defer cancel()
		found, err := net.DefaultResolver.LookupIPAddr(ctx, host)
		if err != nil {
			return nil, fmt.Errorf("cannot resolve %s: %w", host, err)
		}
		for _, a := range found {
			ips = append(ips, a.IP)
		}
	}
	for _, ip := range ips {
		switch {
		case ip == nil || ip.IsUnspecified():
			return &Exposure{Wildcard: true}, nil
		case !ip.IsLoopback():
			return &Exposure{IP: ip}, nil
		}
	}
	return nil, nil
}

// Listening returns the addresses (host:port) a listener on addr, the listener's resolved
// address, is reachable at: addr itself, or for a wildcard the address of every interface up,
// of the families it accepts ([::] takes IPv4 too: Go listens dual-stack), with what the
// wildcard covers ("" for one address).
func Listening(addr string) (addrs []string, covers string) {
	host, port, err := net.SplitHostPort(addr)
	ip := net.ParseIP(host)
	if err != nil || ip == nil || !ip.IsUnspecified() {
		return []string{addr}, ""
	}
	v4only := ip.To4() != nil
	covers = "every interface, IPv4 and IPv6"
	if v4only {
		covers = "every IPv4 interface"
	}
	ifs, _ := net.Interfaces()
	for _, ifc := range ifs {
		if ifc.Flags&net.FlagUp == 0 {
			continue
		}
		as, _ := ifc.Addrs()
		for _, a := range as {
			n, ok := a.(*net.IPNet)
			if !ok || (v4only && n.IP.To4() == nil) {
				continue
			}
			h := n.IP.String()
			if n.IP.IsLinkLocalUnicast() && n.IP.To4() == nil {
				h += "%" + ifc.Name
			}
			addrs = append(addrs, net.JoinHostPort(h, port))
		}
	}
	return addrs, covers
}
