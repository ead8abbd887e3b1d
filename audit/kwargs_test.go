package audit

import (
	"path/filepath"
	"strings"
	"testing"
)

// Issue 37: max_retries passed in a dict — `ChatOpenAI(**kwargs)` — and a
// class called through a name bound to it. Fixtures written for these
// tests.

const kwargsFactoryPy = `from typing import Any, Type, Union

from langchain.chat_models import AzureChatOpenAI, ChatOpenAI


class TracedChat(ChatOpenAI):
    client: Any = None


class TracedAzureChat(AzureChatOpenAI, TracedChat):
    deployment_name: str


def build(settings, streaming=False):
    model: Type[TracedChat] = TracedChat
    kwargs = {
        "openai_api_key": settings.key,
        "streaming": streaming,
        "max_retries": 4,
        "model_kwargs": {"user": settings.user},
    }
    if settings.azure:
        model = TracedAzureChat
        kwargs.update({"deployment_name": settings.deployment})
    return model(**kwargs)
`

func TestKwargsDictIntoSubclassAlias(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "app", "factory.py"), []byte(kwargsFactoryPy))
	r, err := Scan([]string{dir}, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	ls := r.Layers
	if len(ls) != 1 {
		t.Fatalf("layers %+v, want one: model(**kwargs) builds TracedChat", ls)
	}
	l := ls[0]
	if l.Line != 25 || l.Attempts != 4 || l.DefaultID != "langchain-chat-legacy" || !strings.Contains(l.Setting, "max_retries: 4 (in the dict kwargs at app/factory.py:19") {
		t.Fatalf("layer %d %s %d %q", l.Line, l.DefaultID, l.Attempts, l.Setting)
	}
}

const kwargsSDKPy = `from anthropic import Anthropic
from openai import OpenAI

opts = dict(timeout=30, max_retries=6)
client = Anthropic(**opts)

settings = {"timeout": 30, "note": "max_retries: 9"}
settings["max_retries"] = 1
other = OpenAI(**settings)

unrelated = {"max_retries": 8}
third = OpenAI(**params)
`

func TestKwargsDictIntoSDK(t *testing.T) {
	ls := scanPython("svc/clients.py", []byte(kwargsSDKPy))
	if got, want := layerList(ls), "5 7,9 2,12 3"; got != want {
		t.Fatalf("layers %q, want %q (dict(max_retries=6): 7; a string's max_retries is not one, the item set after is: 2; a dict of another name is not read: the default 3)", got, want)
	}
}

// A subclass imported through its package's re-export: agents/__init__.py
// imports it from agents/local_chat.py, app/main.py from agents.
func TestSubclassThroughPackageReExport(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "agents", "local_chat.py"), []byte(`from langchain_openai import ChatOpenAI


class LocalChat(ChatOpenAI):
    max_retries: int = 4
`))
	write(t, filepath.Join(dir, "agents", "__init__.py"), []byte("from .local_chat import LocalChat\n\n__all__ = [\"LocalChat\"]\n"))
	write(t, filepath.Join(dir, "app", "main.py"), []byte(`from agents import LocalChat
from vendor_sdk import LocalChat as VendorChat
import agents


def build():
    a = LocalChat(model="m")
    b = agents.LocalChat(model="m", max_retries=1)
    c = VendorChat(model="m")
    return a, b, c
`))
	r, err := Scan([]string{dir}, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, l := range r.Layers {
		got = append(got, l.File+" "+layerList([]Layer{l}))
	}
	// LocalChat from the package: the class default 4 retries, 5 tries; agents.LocalChat with
	// max_retries=1: 2. A LocalChat of another package is not ours.
	if g, want := strings.Join(got, ","), "app/main.py 7 5,app/main.py 8 2"; g != want {
		t.Fatalf("layers %q, want %q", g, want)
	}
}

// A dict of the same name in another function is not the call's.
func TestKwargsDictOfAnotherFunction(t *testing.T) {
	src := `from openai import OpenAI


def fast():
    kwargs = {"max_retries": 0}
    return OpenAI(**kwargs)


def slow(kwargs):
    return OpenAI(**kwargs)
`
	if got, want := layerList(scanPython("svc/c.py", []byte(src))), "6 1,10 3"; got != want {
		t.Fatalf("layers %q, want %q (slow's kwargs is its parameter: the default)", got, want)
	}
}
