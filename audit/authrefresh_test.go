package audit

import "testing"

// A request sent again once after a 401 and a token refresh is a layer
// of 2 that retries no 400; a refresh with no second request, and a
// token read before the request, are not.
func TestResendAfterTokenRefresh(t *testing.T) {
	r := scanTree(t, map[string]string{
		"src/request.ts": `import { getTokens, refreshTokens } from "./auth";

export async function authedFetch(url: string, init: RequestInit) {
  const tokens = await getTokens();
  init = { ...init, headers: { Authorization: "Bearer " + tokens.access } };
  const res = await fetch(url, init);
  if (res.status === 401) {
    const fresh = await refreshTokens(tokens.refresh);
    init = { ...init, headers: { Authorization: "Bearer " + fresh.access } };
    const again = await fetch(url, init);
    return again.json();
  }
  return res.json();
}

export async function login(url: string) {
  const res = await fetch(url);
  if (res.status === 401) {
    await refreshTokens("");
    throw new Error("log in again");
  }
  return res.json();
}
`,
		"internal/hyper/client.go": `package hyper

import (
	"context"
	"errors"
	"net/http"
)

type client struct {
	refreshToken func(context.Context) error
}

func (c client) Get(ctx context.Context) (string, error) {
	result, err := c.doGet(ctx)
	if err != nil && isUnauthorized(err) && c.refreshToken != nil {
		if rerr := c.refreshToken(ctx); rerr != nil {
			return result, err
		}
		result, err = c.doGet(ctx)
	}
	return result, err
}

func (c client) doGet(ctx context.Context) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "https://example.com", nil)
	if err != nil {
		return "", err
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer res.Body.Close()
	if res.StatusCode == http.StatusUnauthorized {
		return "", errors.New("unauthorized")
	}
	return res.Status, nil
}

func isUnauthorized(err error) bool { return err != nil && err.Error() == "unauthorized" }
`,
		"go.mod": "module example.com/hyper\n\ngo 1.22\n",
	})
	for _, at := range []struct {
		file string
		line int
	}{{"src/request.ts", 10}, {"internal/hyper/client.go", 19}} {
		l := layerAt(t, r, at.file, at.line)
		if l.DefaultID != "auth-refresh" || l.Attempts != 2 || l.Retries4xx {
			t.Errorf("%s:%d: %s attempts=%d 4xx=%v, want a re-send of 2 after a refresh", at.file, at.line, l.DefaultID, l.Attempts, l.Retries4xx)
		}
	}
	for _, l := range r.Layers {
		if l.DefaultID == "auth-refresh" && (l.File == "src/request.ts" && l.Line > 12 || l.File == "internal/hyper/client.go" && l.Line > 22) {
			t.Errorf("no second request: %s:%d %s", l.File, l.Line, l.Setting)
		}
	}
}

// A token read from local storage before the 401 test is no request: an
// interceptor that reads it and refreshes is not read as sending it again.
func TestTokenReadIsNoResentRequest(t *testing.T) {
	r := scanOne(t, "src/api.ts", `import axios from "axios";

let accessToken = localStorage.getItem("accessToken");

api.interceptors.response.use(
  (response) => response,
  async (error) => {
    if (error.response?.status === 401) {
      const { data } = await axios.post("/api/auth/refresh", {
        refreshToken: localStorage.getItem("refreshToken"),
      });
      accessToken = data.accessToken;
    }
    return Promise.reject(error);
  },
);
`)
	for _, l := range r.Layers {
		if l.DefaultID == "auth-refresh" {
			t.Errorf("a token read is no request sent again: %s:%d %s", l.File, l.Line, l.Setting)
		}
	}
}
