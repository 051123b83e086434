/** What the trust service promises and what it does not do (`GET /obligations`, public). */
export const OBLIGATIONS = Object.freeze({
  service: 'trust',
  promises: [
    'Every trust event points at a proving artefact: an execution trace of this suite that exists and verifies, an audit entry that exists, or a URL with the SHA-256 of what it points at.',
    "Every event can be appealed; an upheld appeal removes the event's effect on scores, and the event and the appeal stay on record.",
    'Evidence is recorded facts only, for every subject type, humans included: no score, ranking or conclusion.',
    'Scores are given for agents only, advisory, computed by a documented additive method, each point traceable to one record with a link to appeal it.',
    'With gating disabled (the default) a score check always allows: an advisory score never denies access.',
    "A breach by the operator is never charged to the agent's score; contract health says whose fault each failure is.",
    "An observation of an interaction is stored as its observer's opinion, never as the truth of what happened.",
    'An irreversible dispute is always escalated to a human and never decided by arbitration alone.',
    'POST /arbitrate stores nothing.',
    "A tenant's token reads only its tenant's records.",
  ],
  doesNot: [
    'It does not judge whether an output is true: grounding checks return risk signals, never a verdict.',
    'It does not fetch the URLs given as proof: it records the digest claimed for them.',
    'It does not score humans, organisations or executions.',
    'It does not deny access by itself: a score check answers; the caller decides.',
    'It does not use a model to explain, score, check or arbitrate: every rule is deterministic and documented.',
  ],
  documentation: 'docs/TRUST.md',
});
