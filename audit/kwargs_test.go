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
