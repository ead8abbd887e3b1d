package audit

import (
	"fmt"
	"testing"
)

// TestPnpmLockReadsOnlyImporters: the lockfile cut to its importers (and
// v5's top-level dependencies) reads the versions the whole file gives —
// whatever order the sections come in, with packages and snapshots
// between them — and a cut that does not parse alone (an alias to an
// anchor in a dropped section) falls back to the whole file.
func TestPnpmLockReadsOnlyImporters(t *testing.T) {
	cases := map[string]string{
		"v9":    "lockfileVersion: '9.0'\n\npackages:\n\n  'openai@4.80.0':\n    resolution: {integrity: sha512-x}\n\nimporters:\n\n  .:\n    dependencies:\n      openai:\n        specifier: ^4.80.0\n        version: 4.80.0\n  apps/web:\n    devDependencies:\n      '@anthropic-ai/sdk':\n        specifier: ^0.39.0\n        version: 0.39.0(zod@3.23.8)\n\nsnapshots:\n\n  'openai@4.80.0': {}\n",
		"v5":    "lockfileVersion: 5.4\n\nspecifiers:\n  openai: ^4.0.0\n\ndependencies:\n  openai: 4.52.0\n\npackages:\n\n  /openai/4.52.0:\n    resolution: {integrity: sha512-x}\n",
		"alias": "lockfileVersion: '9.0'\npackages:\n  v: &v 4.80.0\nimporters:\n  .:\n    dependencies:\n      openai: *v\n",
	}
	want := map[string]string{
		"v9":    "map[:map[] .:map[npm/openai:4.80.0] apps/web:map[npm/@anthropic-ai/sdk:0.39.0]]",
		"v5":    "map[:map[npm/openai:4.52.0]]",
		"alias": "map[:map[] .:map[]]", // read, not refused: an alias is never followed
	}
	for name, lock := range cases {
		got := map[string]versionSet{}
		at := func(dir string) versionSet {
			if got[dir] == nil {
				got[dir] = versionSet{}
			}
			return got[dir]
		}
		if err := parsePnpmLock([]byte(lock), at); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if s := fmt.Sprint(got); s != want[name] {
			t.Errorf("%s: %s, want %s", name, s, want[name])
		}
	}
}
