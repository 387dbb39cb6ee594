package cli

import (
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestVersionFromBuildInfo asserts that --version reads the module's version and the VCS
// revision from the build info when no version was set at build time, and prefers one that was.
func TestVersionFromBuildInfo(t *testing.T) {
	rev := []debug.BuildSetting{{Key: "vcs.revision", Value: "0123456789abcdef0123"}, {Key: "vcs.time", Value: "2026-01-02T03:04:05Z"}}
	dirty := append(append([]debug.BuildSetting(nil), rev...), debug.BuildSetting{Key: "vcs.modified", Value: "true"})
	tests := []struct {
		name string
		set  string
		info *debug.BuildInfo
		ok   bool
		want string
	}{
		{"set at build time", "v9.9.9", &debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}}, true, "v9.9.9"},
		{"a tagged module", "dev", &debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}}, true, "v1.2.3"},
		{"a checkout", "dev", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: rev}, true, "dev (revision 0123456789ab, 2026-01-02T03:04:05Z)"},
		{"a dirty checkout", "dev", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: dirty}, true, "dev (revision 0123456789ab+dirty, 2026-01-02T03:04:05Z)"},
		{"a tagged checkout", "", &debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}, Settings: rev}, true, "v1.2.3 (revision 0123456789ab, 2026-01-02T03:04:05Z)"},
		{"a pseudo-version", "dev", &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20260102030405-0123456789ab"}, Settings: rev}, true, "v0.0.0-20260102030405-0123456789ab"},
		{"no build info", "dev", nil, false, "dev (no VCS info)"},
		{"nothing known (-buildvcs=false)", "dev", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, true, "dev (no VCS info)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, versionFrom(tt.set, tt.info, tt.ok))
		})
	}
}
