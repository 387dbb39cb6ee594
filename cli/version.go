package cli

import (
	"runtime/debug"
	"strings"
)

// versionString is what --version prints: Version when set at build time (-ldflags -X), else
// what the build info knows: the module's version when built from a tagged module (go install
// ...@v1.2.3), and the VCS revision and time when built from a checkout (go build), marked
// "+dirty" with uncommitted changes; "dev (no VCS info)" when it knows neither (a build from a
// checkout with -buildvcs=false, as GOFLAGS may set: make build stamps Version from git then).
func versionString() string {
	info, ok := debug.ReadBuildInfo()
	return versionFrom(Version, info, ok)
}

// versionFrom is versionString for a build-time version set and the build info (ok: there is
// some).
func versionFrom(set string, info *debug.BuildInfo, ok bool) string {
	if set != "" && set != "dev" {
		return set
	}
	if !ok || info == nil {
		return noVCS
	}
	v := info.Main.Version
	if v == "(devel)" {
		v = ""
	}
	var rev, at string
	dirty := false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			at = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if rev != "" && !strings.Contains(v, rev) { // a pseudo-version already holds the revision
		if dirty {
			rev += "+dirty"
		}
		detail := "revision " + rev
		if at != "" {
			detail += ", " + at
		}
		if v == "" {
			return "dev (" + detail + ")"
		}
		return v + " (" + detail + ")"
	}
	if v == "" {
		return noVCS
	}
	return v
}

// noVCS is the version of a build that knows neither its module's version nor its revision.
const noVCS = "dev (no VCS info)"
