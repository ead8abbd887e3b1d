package follow

import (
	"os"
	"syscall"
	"time"
)

// A file is read once whatever names it goes by. logrotate's default
// (rename, create) and copytruncate both leave the old bytes under a new
// name beside the log — app.log.1 — and a glob that matches it ('logs/*',
// 'app.log*', '*.log*', a directory) found it as a new file and read it
// again from its start: every rotation billed the rotated file twice
// (red team R8-24: 250 calls for 150 after one rotation, 410 for 160
// after two; R8-19 for copytruncate). As Vector's and Filebeat's file
// sources do, a file is known by its identity (device and inode, and its
// first bytes): a name that appears with the identity of a file a
// follower reads now waits for it, and one that a follower has let go of
// goes on from where that follower stopped. A copytruncate copy is a new
// inode with the cut file's first bytes: the follower that read the cut
// file from its copy records the copy as read to its end.

// Check opens a file with no Tail: the methods below do nothing then.

// fileKey is a file's identity.
type fileKey struct{ dev, ino uint64 }

func keyOf(fi os.FileInfo) (fileKey, bool) {
	if fi == nil {
		return fileKey{}, false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fileKey{}, false
	}
	return fileKey{uint64(st.Dev), uint64(st.Ino)}, true
}

// withKey runs f under t.mu with fi's identity; nothing on a nil Tail
// (Check's file) or a file with none.
func (t *Tail) withKey(fi os.FileInfo, f func(k fileKey)) {
	if t == nil {
		return
	}
	k, ok := keyOf(fi)
	if !ok {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	f(k)
}

// maxRetired bounds the identities remembered after their follower let
// them go: a directory's rotations over days, not its whole history.
const maxRetired = 4096

// aliasWait is how long a name waits for another follower to let go of
// its file, or for a follower whose file starts the same to be cut,
// before it is read on its own: a name whose file is read under another
// name is never read from its start while that one reads it.
const aliasWait = 10 * time.Second

// reading registers that path's follower reads fi; it returns the path of
// another follower that reads it now, if one does.
func (t *Tail) reading(path string, fi os.FileInfo) (other string) {
	if t == nil {
		return ""
	}
	k, ok := keyOf(fi)
	if !ok {
		return ""
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if p, on := t.readers[k]; on && p != path {
		return p
	}
	if t.readers == nil {
		t.readers = map[fileKey]string{}
	}
	t.readers[k] = path
	return ""
}

// released records where path's follower stopped reading fi (at, the
// start of the line it had not finished), for a name the file takes next.
func (t *Tail) released(path string, at resumePoint) {
	t.withKey(at.fi, func(k fileKey) {
		if t.readers[k] == path {
			delete(t.readers, k)
		}
		t.retire(k, at)
	})
}

// retire must hold t.mu.
func (t *Tail) retire(k fileKey, at resumePoint) {
	if t.retired == nil || len(t.retired) >= maxRetired {
		t.retired = map[fileKey]resumePoint{}
	}
	t.retired[k] = at
}

// readToEnd records fi — a rotated copy read to its end from a cut
// file's follower — as read, with the cut file's first bytes.
func (t *Tail) readToEnd(fi os.FileInfo, head []byte) {
	t.withKey(fi, func(k fileKey) {
		t.retire(k, resumePoint{fi: fi, head: append([]byte(nil), head...), pos: fi.Size()})
	})
}

// retiredAt is where a follower that let go of fi stopped, if one did.
func (t *Tail) retiredAt(fi os.FileInfo) (resumePoint, bool) {
	if t == nil {
		return resumePoint{}, false
	}
	k, ok := keyOf(fi)
	if !ok {
		return resumePoint{}, false
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	at, ok := t.retired[k]
	return at, ok
}

// copyOfLive: head is the first bytes of a file another follower reads
// now under another name, not yet cut — a copytruncate copy made in the
// instant before that follower sees the cut (it reads the copy itself
// then, from where it was).
func (t *Tail) copyOfLive(path string, fi os.FileInfo, head []byte) bool {
	if t == nil {
		return false
	}
	if len(head) < fingerprintBytes {
		return false // a short head is no fingerprint (two small files may start alike)
	}
	k, _ := keyOf(fi)
	t.mu.Lock()
	defer t.mu.Unlock()
	for key, p := range t.readers {
		if key == k || p == path {
			continue
		}
		if h := t.heads[key]; len(h) == len(head) && string(h) == string(head) {
			return true
		}
	}
	return false
}

// noteHead keeps the first bytes of a file a follower reads (again after
// a cut: the cut file starts anew).
func (t *Tail) noteHead(fi os.FileInfo, head []byte) {
	if t == nil {
		return
	}
	k, ok := keyOf(fi)
	if !ok || len(head) < fingerprintBytes {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.heads == nil {
		t.heads = map[fileKey][]byte{}
	}
	if len(t.heads) >= maxRetired {
		clear(t.heads)
	}
	t.heads[k] = append(t.heads[k][:0], head...)
}

// unread undoes reading: path's follower does not read fi after all.
func (t *Tail) unread(path string, fi os.FileInfo) {
	t.withKey(fi, func(k fileKey) {
		if t.readers[k] == path {
			delete(t.readers, k)
		}
	})
}
