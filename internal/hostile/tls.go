package hostile

import (
	"bufio"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"math/big"
	"net"
	"sync"
	"time"
)

// TLS returns a behaviour that speaks TLS (a self-signed certificate for 127.0.0.1, ::1 and
// localhost, which no client trusts unless given CertPool) and runs inner over it.
func TLS(inner Behaviour) Behaviour {
	return func(c *Conn) {
		tc := tls.Server(c.Conn, serverConfig())
		_ = tc.SetDeadline(time.Now().Add(10 * time.Second))
		if tc.Handshake() != nil {
			return
		}
		_ = tc.SetDeadline(time.Time{})
		inner(&Conn{Conn: tc, br: bufio.NewReader(tc), s: c.s})
	}
}

var (
	certOnce sync.Once
	cert     tls.Certificate
	pool     *x509.CertPool
)

// CertPool returns a pool that trusts the certificate of the TLS behaviours.
func CertPool() *x509.CertPool {
	makeCert()
	return pool
}

// serverConfig is the TLS behaviours' server configuration.
func serverConfig() *tls.Config {
	makeCert()
	return &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
}

// makeCert makes the self-signed certificate once.
func makeCert() {
	certOnce.Do(func() {
		key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			panic(err)
		}
		tmpl := &x509.Certificate{
			SerialNumber:          big.NewInt(1),
			Subject:               pkix.Name{CommonName: "cortex-tui hostile server"},
			NotBefore:             time.Now().Add(-time.Hour),
			NotAfter:              time.Now().Add(24 * time.Hour),
			KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
			ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
			BasicConstraintsValid: true,
			IsCA:                  true,
			IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
			DNSNames:              []string{"localhost"},
		}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
		if err != nil {
			panic(err)
		}
		leaf, err := x509.ParseCertificate(der)
		if err != nil {
			panic(err)
		}
		cert = tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}
		pool = x509.NewCertPool()
		pool.AddCert(leaf)
	})
}
