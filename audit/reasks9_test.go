package audit

import (
	"strings"
	"testing"
)

// Round 9's re-asks (issue 37, reasks9.go): the model asked again when
// its answer cannot be used; near misses stay no layer.

const errorReaskPy = `import json
import logging
import re


async def gen_json(system_prompt, user_prompt, chat_mdl, max_retry=2):
    msg = [{"role": "system", "content": system_prompt}, {"role": "user", "content": user_prompt}]
    err = ""
    ans = ""
    for _ in range(max_retry):
        if ans and err:
            msg[-1]["content"] += f"\nYour JSON:\n{ans}\nfailed to load:\n{err}\nPlease correct it."
        ans = await chat_mdl.async_chat(msg[0]["content"], msg[1:])
        ans = re.sub(r"^` + "```" + `json\n|` + "```" + `$", "", ans)
        try:
            return json.loads(ans)
        except Exception as e:
            logging.exception("bad json: %s", ans)
            err += str(e)


async def parse_all(chat_mdl, texts):
    out = []
    for i in range(3):
        ans = await chat_mdl.async_chat(texts[i])
        try:
            out.append(json.loads(ans))
            return out
        except Exception as e:
            logging.warning("skipping %s", e)
    return out
`

const repairTextTS = `import { generateObject, generateText } from "ai";

export async function extract(model: any, schema: any, prompt: string) {
  const repairConfig = {
    experimental_repairText: async ({ text, error }: { text: string; error: unknown }) => {
      if (text.trim().startsWith("` + "```" + `")) {
        return text.trim().slice(3, -3);
      }
      const { text: fixed } = await generateText({
        model,
        prompt: "Fix this JSON, which failed with " + String(error) + ":\n" + text,
      });
      return fixed;
    },
  };
  return await generateObject({ model, schema, prompt, ...repairConfig });
}

export async function extractLocal(model: any, schema: any, prompt: string) {
  return await generateObject({
    model,
    schema,
    prompt,
    experimental_repairText: async ({ text }: { text: string }) => text.replace(/,\s*}/g, "}"),
  });
}
`

func TestReasksOfUnusableAnswers(t *testing.T) {
	r := scanTree(t, map[string]string{
		"rag/prompts.py": errorReaskPy,
		"src/extract.ts": repairTextTS,
		"package.json":   `{"dependencies": {"ai": "4.0.0"}}`,
	})
	l := layerAt(t, r, "rag/prompts.py", 10)
	if l.DefaultID != "reask" || l.Attempts != 2 || !strings.Contains(l.Setting, "the error fed back in err") || l.Retries4xx {
		t.Errorf("gen_json: %s attempts=%d setting=%q 4xx=%v, want a re-ask of 2 feeding err back", l.DefaultID, l.Attempts, l.Setting, l.Retries4xx)
	}
	noLayerAt(t, r, "rag/prompts.py", 24, "a loop over texts that logs the error and reads the next text")
	if l := layerAt(t, r, "src/extract.ts", 5); l.DefaultID != "reask" || l.Attempts != 2 {
		t.Errorf("experimental_repairText asking a model: %s attempts=%d, want a re-ask of 2", l.DefaultID, l.Attempts)
	}
	noLayerAt(t, r, "src/extract.ts", 24, "a repair by string surgery asks nothing")
}

// A loop over temperatures asks the model again on a failed answer, once
// per entry — even when the entry goes unused; a loop over numbers named
// for something else is not one.
func TestTemperatureLoopIsReask(t *testing.T) {
	r := scanOne(t, "src/schema.ts", `import { generateCompletions } from "./llm";

export async function schemaFor(prompt: string) {
  const temperatures = [0, 0.1, 0.3];
  let lastError: unknown;
  for (const temp of temperatures) {
    try {
      const { extract } = await generateCompletions({
        prompt,
        // temperature: temp,
      });
      return extract;
    } catch (error) {
      lastError = error;
    }
  }
  throw lastError;
}

export async function pages(ids: number[]) {
  for (const page of [1, 2, 3]) {
    try {
      return await generateCompletions({ prompt: String(page) });
    } catch (error) {
      console.warn(error);
    }
  }
}
`)
	if l := layerAt(t, r, "src/schema.ts", 6); l.Attempts != 3 || !strings.Contains(l.Library, "temperature") {
		t.Errorf("temperatures: %s attempts=%d, want a re-ask of 3", l.Library, l.Attempts)
	}
	noLayerAt(t, r, "src/schema.ts", 21, "a loop over pages walks no fallbacks")
}
