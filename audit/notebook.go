package audit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Jupyter notebooks (.ipynb) hold their Python in JSON: cells[].source,
// a string or a list of strings, of the cells whose cell_type is "code".
// The code cells are read as one Python source; each of its lines keeps
// the line of the notebook's JSON it came from, so a layer is reported
// at notebook.ipynb:N, the line a reader finds in the file. Outputs
// (images, tables) are skipped unread.

var errNotebook = errors.New("not a notebook: no cells list of objects")

// notebookPython returns the notebook's code cells as Python and, for
// each line of that source (0-based), the JSON line (1-based) it came
// from. It streams tokens with no recursion, so nesting depth costs
// nothing; the source is no larger than the file, already capped.
func notebookPython(raw []byte) ([]byte, []int, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	jl := jsonLines{raw: raw, line: 1}
	var src bytes.Buffer
	var lineOf []int

	if err := expectDelim(dec, '{'); err != nil {
		return nil, nil, err
	}
	sawCells := false
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return nil, nil, err
		}
		if k, _ := key.(string); k != "cells" || sawCells {
			if err := skipValue(dec); err != nil {
				return nil, nil, err
			}
			continue
		}
		sawCells = true
		if err := expectDelim(dec, '['); err != nil {
			return nil, nil, err
		}
		for dec.More() {
			code, pieces, err := readCell(dec, &jl)
			if err != nil {
				return nil, nil, err
			}
			if !code {
				continue
			}
			for _, p := range pieces {
				for _, ln := range strings.SplitAfter(p.text, "\n") {
					if ln == "" {
						continue
					}
					// IPython magics and shell escapes are not Python.
					if t := strings.TrimLeft(ln, " \t"); strings.HasPrefix(t, "%") || strings.HasPrefix(t, "!") {
						ln = "\n"
					}
					src.WriteString(ln)
					if !strings.HasSuffix(ln, "\n") {
						src.WriteByte('\n')
					}
					lineOf = append(lineOf, p.line)
				}
			}
			// A blank line between cells, so one cell's block ends.
			src.WriteByte('\n')
			lineOf = append(lineOf, jl.line)
		}
		if _, err := dec.Token(); err != nil { // ]
			return nil, nil, err
		}
	}
	if !sawCells {
		return nil, nil, errNotebook
	}
	return src.Bytes(), lineOf, nil
}

type sourcePiece struct {
	text string
	line int
}

// readCell reads one element of cells: whether it is a code cell, and its
// source strings with their JSON lines. An element that is not an object
// is skipped.
func readCell(dec *json.Decoder, jl *jsonLines) (bool, []sourcePiece, error) {
	t, err := dec.Token()
	if err != nil {
		return false, nil, err
	}
	if d, ok := t.(json.Delim); !ok || d != '{' {
		if ok {
			return false, nil, skipRest(dec, 1)
		}
		return false, nil, nil
	}
	code := false
	var pieces []sourcePiece
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return false, nil, err
		}
		switch k, _ := key.(string); k {
		case "cell_type":
			v, err := dec.Token()
			if err != nil {
				return false, nil, err
			}
			if _, ok := v.(json.Delim); ok { // an object or a list: not a type
				if err := skipRest(dec, 1); err != nil {
					return false, nil, err
				}
			}
			s, _ := v.(string)
			code = s == "code"
		case "source":
			v, err := dec.Token()
			if err != nil {
				return false, nil, err
			}
			switch v := v.(type) {
			case string:
				pieces = append(pieces, sourcePiece{v, jl.at(dec.InputOffset())})
			case json.Delim:
				if v != '[' {
					if err := skipRest(dec, 1); err != nil {
						return false, nil, err
					}
					continue
				}
				for dec.More() {
					e, err := dec.Token()
					if err != nil {
						return false, nil, err
					}
					switch e := e.(type) {
					case string:
						pieces = append(pieces, sourcePiece{e, jl.at(dec.InputOffset())})
					case json.Delim:
						if err := skipRest(dec, 1); err != nil {
							return false, nil, err
						}
					}
				}
				if _, err := dec.Token(); err != nil { // ]
					return false, nil, err
				}
			}
		default:
			if err := skipValue(dec); err != nil {
				return false, nil, err
			}
		}
	}
	if _, err := dec.Token(); err != nil { // }
		return false, nil, err
	}
	return code, pieces, nil
}

func expectDelim(dec *json.Decoder, want json.Delim) error {
	t, err := dec.Token()
	if err != nil {
		return err
	}
	if d, ok := t.(json.Delim); !ok || d != want {
		return fmt.Errorf("%w (found %v where %v was expected)", errNotebook, t, want)
	}
	return nil
}

// skipValue reads one value whole, counting depth rather than recursing.
func skipValue(dec *json.Decoder) error {
	t, err := dec.Token()
	if err != nil {
		return err
	}
	if d, ok := t.(json.Delim); ok && (d == '{' || d == '[') {
		return skipRest(dec, 1)
	}
	return nil
}

// skipRest reads until depth open objects and arrays have closed.
func skipRest(dec *json.Decoder, depth int) error {
	for depth > 0 {
		t, err := dec.Token()
		if err == io.EOF {
			return io.ErrUnexpectedEOF
		}
		if err != nil {
			return err
		}
		if d, ok := t.(json.Delim); ok {
			if d == '{' || d == '[' {
				depth++
			} else {
				depth--
			}
		}
	}
	return nil
}

// jsonLines turns the decoder's offsets, which only grow, into lines.
// A JSON string holds no raw newline, so the line its token ends on is
// the line it starts on.
type jsonLines struct {
	raw  []byte
	off  int
	line int
}

func (j *jsonLines) at(off int64) int {
	end := min(int(off), len(j.raw))
	if end > j.off {
		j.line += bytes.Count(j.raw[j.off:end], []byte{'\n'})
		j.off = end
	}
	return j.line
}

// notebookLine is the JSON line of the notebook source's line n (1-based).
func notebookLine(lineOf []int, n int) int {
	if n >= 1 && n <= len(lineOf) {
		return lineOf[n-1]
	}
	return n
}
