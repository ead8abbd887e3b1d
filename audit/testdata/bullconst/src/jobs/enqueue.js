const { drafts } = require("../queues");
const { REPORT_JOB_OPTIONS } = require("../config/jobs");

async function addJob(name, data, opts) {
  return drafts.add(name, data, {
    attempts: opts?.attempts || 3,
    backoff: opts?.backoff || { type: "exponential", delay: 2000 },
  });
}

async function report(data) {
  const seen = new Set();
  seen.add(data.id, data);
  return drafts.add("report", data, REPORT_JOB_OPTIONS);
}

module.exports = { addJob, report };
