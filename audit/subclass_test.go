package audit

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// A repository's own subclass of a modelled client class, defined in one
// file and constructed in others: the shape of a local-model wrapper
// (a ChatOpenAI pointed at a local server) and of a client with the
// repository's headers. Written for these tests, not copied.

const localChatPy = `"""A chat model for a local OpenAI-compatible server."""
from typing import Optional

from langchain_openai import ChatOpenAI
from pydantic import Field


class LocalChat(ChatOpenAI):
    """ChatOpenAI pointed at a local server, with JSON mode."""

    format: Optional[str] = Field(default=None)

    def __init__(self, base_url="http://localhost:1234/v1", **kwargs):
        super().__init__(base_url=base_url, api_key="unused", **kwargs)


class StrictLocalChat(LocalChat):
    max_retries: int = 6  # a class default of the repository's own
`

const graphPy = `import os

from agent.local_chat import LocalChat, StrictLocalChat
from agent import local_chat as lc


def summarizer(cfg):
    if cfg.provider == "local":
        return LocalChat(model=cfg.model, temperature=0)
    return lc.LocalChat(model=cfg.model, max_retries=1)


def strict(cfg):
    return StrictLocalChat(model=cfg.model)
`

const clientPy = `import openai


class TaggedClient(openai.OpenAI):
    def __init__(self, **kw):
        super().__init__(default_headers={"x-app": "tool"}, **kw)


client = TaggedClient()
`

func TestSubclassOfModelledClassAcrossFiles(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "src", "agent", "local_chat.py"), []byte(localChatPy))
	write(t, filepath.Join(dir, "src", "agent", "graph.py"), []byte(graphPy))
	write(t, filepath.Join(dir, "src", "agent", "client.py"), []byte(clientPy))
	r, err := Scan([]string{dir}, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Layer{}
	for _, l := range r.Layers {
		got[l.File+":"+strconv.Itoa(l.Line)] = l
	}
	want := []struct {
		at, id   string
		attempts int
		note     string
	}{
		{"src/agent/graph.py:9", "openai-python", 3, "LocalChat is this repository's subclass of ChatOpenAI (src/agent/local_chat.py:8)"},
		{"src/agent/graph.py:10", "openai-python", 2, "subclass of ChatOpenAI"},               // max_retries=1 at the call
		{"src/agent/graph.py:14", "openai-python", 7, "StrictLocalChat is this repository's"}, // the class's own default, through LocalChat
		{"src/agent/client.py:9", "openai-python", 3, "TaggedClient is this repository's subclass of OpenAI (line 4)"},
	}
	for _, w := range want {
		l, ok := got[w.at]
		if !ok {
			t.Errorf("no layer at %s; layers %v", w.at, layersOf(r))
			continue
		}
		if l.DefaultID != w.id || l.Attempts != w.attempts || !strings.Contains(l.Note, w.note) {
			t.Errorf("%s: %s %d attempts, note %q; want %s %d, note with %q", w.at, l.DefaultID, l.Attempts, l.Note, w.id, w.attempts, w.note)
		}
	}
	if len(r.Layers) != len(want) {
		t.Errorf("%d layers, want %d (no layer at a class line or at super().__init__): %v", len(r.Layers), len(want), layersOf(r))
	}
}

// Near misses: a class of the same name that extends nothing modelled, one
// imported from a module that is not the subclass's file, a subclass of a
// class that only shares the modelled one's name, and a class named but
// never constructed.
func TestSubclassNearMisses(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "app", "local_chat.py"), []byte(localChatPy))
	write(t, filepath.Join(dir, "app", "other.py"), []byte(`class LocalChat(object):
    pass


class ChatOpenAI:  # the repository's own, not langchain_openai's
    pass


class Mimic(ChatOpenAI):
    pass


m = Mimic()
`))
	write(t, filepath.Join(dir, "app", "use.py"), []byte(`from app.other import LocalChat
from app.local_chat import StrictLocalChat

x = LocalChat()
kind = StrictLocalChat  # named, not built
isinstance(x, LocalChat)
`))
	r, err := Scan([]string{dir}, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Layers) != 0 {
		t.Fatalf("want no layers, got %v", layersOf(r))
	}
}

// A tree built to make the subclass index a product — thousands of
// classes of one name, each extended, in thousands of files — is scanned
// in bounded time, and the classes past the bound are not followed.
func TestSubclassIndexIsBounded(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("from langchain_openai import ChatOpenAI\n")
	for i := 0; i < 3000; i++ {
		b.WriteString("class Chat(ChatOpenAI):\n    pass\nclass Sub" + strconv.Itoa(i) + "(Chat):\n    pass\n")
	}
	write(t, filepath.Join(dir, "models.py"), []byte(b.String()))
	for i := 0; i < 300; i++ {
		write(t, filepath.Join(dir, "m", "u"+strconv.Itoa(i)+".py"), []byte("from models import Chat\nChat()\n"))
	}
	var r *Result
	var err error
	noHang(t, "3,000 subclasses, 300 callers", func() { r, err = Scan([]string{dir}, DefaultOptions()) })
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Layers) != 300 { // one a call, though many classes are named Chat
		t.Fatalf("%d layers", len(r.Layers))
	}
}

// Classes nested ever deeper, each body running to the end of the file: the
// class defaults are read from a bounded head, not the rest of the file
// per class.
func TestNestedClassesAreNotQuadratic(t *testing.T) {
	var b strings.Builder
	b.WriteString("from langchain_openai import ChatOpenAI\n")
	for i := 0; b.Len() < 900<<10; i++ {
		b.WriteString(strings.Repeat(" ", i) + "class C" + strconv.Itoa(i) + "(ChatOpenAI):\n")
	}
	var defs []pyClassDef
	noHang(t, "nested classes", func() { defs = pyClassDefs(newFile(fkPython, "nested.py", []byte(b.String()), nil)) })
	if len(defs) == 0 || defs[0].base == nil || defs[0].base.name != "ChatOpenAI" {
		t.Fatalf("defs %d", len(defs))
	}
}

// The TypeScript form: a client with the repository's own defaults, a
// LangChain.js chat model subclass exported as default, a chain of two,
// and near misses (a class of the same name from another module, a class
// extending a local class that shares a modelled name).
func TestJSSubclassAcrossModules(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "src", "lib", "tagged-client.ts"), []byte(`import OpenAI from "openai";

export class TaggedClient extends OpenAI {
  constructor(opts: { apiKey: string }) {
    super({ ...opts, defaultHeaders: { "x-app": "tool" } });
  }
}

export class QuietClient extends TaggedClient {}
`))
	write(t, filepath.Join(dir, "src", "lib", "local-chat.ts"), []byte(`import { ChatOpenAI } from "@langchain/openai";

export default class LocalChat extends ChatOpenAI {
  static lc_name() {
    return "LocalChat";
  }
}
`))
	write(t, filepath.Join(dir, "src", "routes", "chat.ts"), []byte(`import { TaggedClient, QuietClient } from "../lib/tagged-client";
import Chat from "@/lib/local-chat";

export const a = new TaggedClient({ apiKey: process.env.KEY! });
export const b = new QuietClient({ apiKey: "k", maxRetries: 0 });
export const c = new Chat({ model: "local" });
`))
	write(t, filepath.Join(dir, "src", "routes", "other.ts"), []byte(`import { TaggedClient } from "./not-the-client";
class ChatOpenAI {}
class Mimic extends ChatOpenAI {}
export const x = new TaggedClient();
export const y = new Mimic();
`))
	r, err := Scan([]string{dir}, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, l := range r.Layers {
		got = append(got, l.File+":"+strconv.Itoa(l.Line)+" "+l.DefaultID+" "+strconv.Itoa(l.Attempts))
		if !strings.Contains(l.Note, "this repository's subclass of") {
			t.Errorf("%s:%d note %q", l.File, l.Line, l.Note)
		}
	}
	want := "src/routes/chat.ts:4 openai-node 3,src/routes/chat.ts:5 openai-node 1,src/routes/chat.ts:6 langchainjs-asynccaller 7"
	if strings.Join(got, ",") != want {
		t.Fatalf("layers %v\nwant %s", got, want)
	}
}
