package sources

import (
	"errors"
	"net/netip"
	"testing"
)

// These tests send no traffic.

func TestCheckDial(t *testing.T) {
	allow := []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}
	tests := []struct {
		network, address string
		ok               bool
	}{
		{"tcp4", "127.0.0.1:80", true},
		{"tcp4", "127.0.0.2:80", false},
		{"tcp6", "[::ffff:127.0.0.1]:443", true},
		{"tcp6", "[::ffff:127.0.0.2]:443", false},
		{"tcp6", "[::1]:80", false},
		{"tcp6", "[fe80::1%eth0]:80", false},
		{"tcp4", "0.0.0.0:80", false},
		{"tcp4", "169.254.169.254:80", false},
		{"tcp4", "8.8.8.8:443", true},
		{"udp4", "8.8.8.8:53", false},
		{"tcp", "example.com:80", false},
	}
	for _, tt := range tests {
		err := checkDial(tt.network, tt.address, allow)
		if tt.ok != (err == nil) {
			t.Errorf("checkDial(%q, %q) = %v, want ok %v", tt.network, tt.address, err, tt.ok)
		}
		var ue *UserError
		if err != nil && (!errors.As(err, &ue) || ue.Type != TypeUnprocessable) {
			t.Errorf("checkDial(%q, %q) = %v, want a UserError unprocessable", tt.network, tt.address, err)
		}
	}
}

func TestCheckURL(t *testing.T) {
	allow := []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}
	tests := []struct {
		url   string
		allow []netip.Prefix
		ok    bool
	}{
		{"https://example.com/sermon.txt", nil, true},
		{"http://example.com/sermon.vtt?x=1", nil, true},
		{"HTTPS://Example.COM/a", nil, true},
		{"https://example.com:8443/a", nil, true},
		{"http://8.8.8.8/a", nil, true},
		{"http://[2606:4700:4700::1111]/a", nil, true},
		{"http://127.0.0.1:8080/a", allow, true},
		{"http://localhost:8080/a", allow, true},
		{"https://1password.com/a", nil, true},         // a number first is fine
		{"https://example.com.123abc/a", nil, true},    // not a number: letters
		{"https://0xdeadbeef.example.com/", nil, true}, // only the last label counts

		{"", nil, false},
		{"  ", nil, false},
		{"ftp://example.com/a", nil, false},
		{"file:///etc/passwd", nil, false},
		{"javascript:alert(1)", nil, false},
		{"gopher://example.com/", nil, false},
		{"data:text/plain,hello", nil, false},
		{"//example.com/a", nil, false},
		{"example.com/a", nil, false},
		{"https:///a", nil, false},
		{"https://user:pass@example.com/a", nil, false},
		{"https://user@example.com/a", nil, false},
		{"http://%zz/", nil, false},
		{"http://127.0.0.1/a", nil, false},
		{"http://127.0.0.2/a", allow, false},
		{"http://0.0.0.0/a", allow, false},
		{"http://10.0.0.1/a", nil, false},
		{"http://169.254.169.254/latest/meta-data/", nil, false},
		{"http://[::1]/a", nil, false},
		{"http://[::ffff:127.0.0.2]/a", allow, false},
		{"http://[::ffff:7f00:2]/a", allow, false},
		{"http://[fd00:ec2::254]/a", nil, false},
		{"http://[fe80::1%25eth0]/a", nil, false},
		{"http://2130706434/a", allow, false},
		{"http://0177.0.0.2/a", allow, false},
		{"http://0x7f000002/a", allow, false},
		{"http://0x7f.0.0.2/a", allow, false},
		{"http://127.1/a", allow, false},
		{"http://127.0.0.2./a", allow, false},
		{"http://0/a", nil, false},
		{"http://localhost/a", nil, false},
		{"http://LOCALHOST./a", nil, false},
		{"http://app.localhost/a", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.url, func(t *testing.T) {
			err := CheckURL(tt.url, tt.allow)
			if tt.ok {
				if err != nil {
					t.Fatalf("CheckURL(%q) = %v, want nil", tt.url, err)
				}
				return
			}
			var ue *UserError
			if !errors.As(err, &ue) || ue.Type != TypeInvalidRequest {
				t.Fatalf("CheckURL(%q) = %v, want a UserError invalid_request", tt.url, err)
			}
		})
	}
}
