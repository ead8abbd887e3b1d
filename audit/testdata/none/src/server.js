// No retry here: errors go straight back to the caller.
const express = require("express");
const app = express();

app.get("/health", (req, res) => res.send("ok"));

// "retry" appears only in this comment and in the string below
const message = "we never retry; new Anthropic() is not called";

for (let i = 0; i < 3; i++) {
  console.log("warming", i);
}

app.listen(3000);
