package summarise

import (
	"context"

	backoff "example.com/summarise/internal/retry"
	"github.com/avast/retry-go/v4"
)

type client interface {
	Complete(ctx context.Context, prompt string) (string, error)
}

func Summarise(ctx context.Context, c client, text string) (out string, err error) {
	err = retry.Do(func() error {
		out, err = c.Complete(ctx, "Summarise: "+text)
		return err
	}, retry.Attempts(3), retry.Context(ctx))
	return out, err
}

func Title(ctx context.Context, c client, text string) (string, error) {
	return retry.DoWithData(func() (string, error) {
		return c.Complete(ctx, "Title: "+text)
	})
}

func Forever(ctx context.Context, c client, text string) error {
	return retry.Do(func() error {
		_, err := c.Complete(ctx, text)
		return err
	}, retry.Attempts(0))
}

// Not avast/retry-go: a package of the project's own that is also called
// retry, with a Do of its own.
func Own(ctx context.Context, c client, text string) error {
	return backoff.Do(func() error {
		_, err := c.Complete(ctx, text)
		return err
	})
}
