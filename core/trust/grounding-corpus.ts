/**
 * A labelled corpus written for the grounding tests (issue 17): output/source pairs, each either
 * supported (no signal expected) or carrying one planted defect of a known type, with the text the
 * defect's span must contain.
 */
export interface LabelledPair {
  name: string;
  sources: string[];
  output: string;
  defect: null | {
    type: 'unsupported-claim' | 'number-not-in-sources' | 'date-not-in-sources' | 'quotation-not-found' | 'entity-not-in-sources';
    span: string;
  };
}

const acme =
  'Acme Logistics reported revenue of 4.2 million euros for the third quarter. The company opened a warehouse in Rotterdam on 12 March 2024. Chief executive Maria Lopez said "we expect steady growth next year" during the call.';
const clinic =
  'The Northfield clinic treated 1,250 patients in June. Waiting times fell from 45 minutes to 30 minutes after the new triage system was introduced. Dr. Samuel Okafor leads the emergency department.';
const bridge =
  'Construction of the Elm Street bridge began on 2023-05-02. The bridge is 320 metres long and cost 18 million dollars. The city council approved the budget in a 7 to 2 vote.';
const launch =
  'The Orion satellite launched from Kourou on 5 September 2022. It carries three cameras and weighs 850 kilograms. Mission director Hannah Vogel described the launch as "flawless in every respect".';
const library =
  'The Central Library lends about 90,000 books each month. Its reading room seats 240 people. Librarian Tom Becker introduced Sunday opening hours in January 2021.';
const outage =
  'The outage affected 3 data centres and lasted 47 minutes. Engineers traced the fault to a misconfigured load balancer. Service was fully restored at 14:20 UTC.';

export const CORPUS: LabelledPair[] = [
  // Supported: each sentence restates a source sentence; numbers, dates, quotes and names are all in the sources.
  { name: 'supported: revenue restated', sources: [acme], output: 'Acme Logistics reported revenue of 4.2 million euros for the third quarter.', defect: null },
  { name: 'supported: warehouse date', sources: [acme], output: 'The company opened a warehouse in Rotterdam on 12 March 2024.', defect: null },
  { name: 'supported: exact quote', sources: [acme], output: 'Maria Lopez said "we expect steady growth next year" during the call.', defect: null },
  {
    name: 'supported: clinic figures',
    sources: [clinic],
    output: 'The Northfield clinic treated 1,250 patients in June. Waiting times fell from 45 minutes to 30 minutes.',
    defect: null,
  },
  { name: 'supported: clinic lead', sources: [clinic], output: 'Dr. Samuel Okafor leads the emergency department.', defect: null },
  { name: 'supported: bridge facts', sources: [bridge], output: 'The bridge is 320 metres long and cost 18 million dollars.', defect: null },
  { name: 'supported: bridge vote, reordered', sources: [bridge], output: 'In a 7 to 2 vote, the city council approved the budget.', defect: null },
  {
    name: 'supported: satellite',
    sources: [launch],
    output: 'The Orion satellite launched from Kourou on 5 September 2022. It weighs 850 kilograms and carries three cameras.',
    defect: null,
  },
  {
    name: 'supported: library, two sources',
    sources: [library, outage],
    output: 'The Central Library lends about 90,000 books each month. Its reading room seats 240 people.',
    defect: null,
  },
  { name: 'supported: outage cause', sources: [outage], output: 'Engineers traced the fault to a misconfigured load balancer.', defect: null },

  // Unsupported claims: a sentence no source sentence covers.
  {
    name: 'unsupported: acquisition',
    sources: [acme],
    output: 'Acme Logistics reported revenue of 4.2 million euros for the third quarter. The firm plans an acquisition of several competitors abroad.',
    defect: { type: 'unsupported-claim', span: 'The firm plans an acquisition of several competitors abroad.' },
  },
  {
    name: 'unsupported: staffing',
    sources: [clinic],
    output: 'Staff shortages forced nurses to work double shifts throughout summer.',
    defect: { type: 'unsupported-claim', span: 'Staff shortages forced nurses to work double shifts throughout summer.' },
  },
  {
    name: 'unsupported: safety',
    sources: [bridge],
    output: 'Inspectors found serious cracks in the supporting pillars.',
    defect: { type: 'unsupported-claim', span: 'Inspectors found serious cracks in the supporting pillars.' },
  },
  {
    name: 'unsupported: orbit',
    sources: [launch],
    output: 'The satellite will photograph polar ice melting over the coming decade.',
    defect: { type: 'unsupported-claim', span: 'The satellite will photograph polar ice melting over the coming decade.' },
  },
  {
    name: 'unsupported: blame',
    sources: [outage],
    output: 'Service was fully restored at 14:20 UTC. Management dismissed the vendor responsible for hardware procurement.',
    defect: { type: 'unsupported-claim', span: 'Management dismissed the vendor responsible for hardware procurement.' },
  },

  // Altered numbers and dates.
  {
    name: 'altered number: revenue',
    sources: [acme],
    output: 'Acme Logistics reported revenue of 4.8 million euros for the third quarter.',
    defect: { type: 'number-not-in-sources', span: '4.8' },
  },
  {
    name: 'altered number: patients',
    sources: [clinic],
    output: 'The Northfield clinic treated 1,520 patients in June.',
    defect: { type: 'number-not-in-sources', span: '1,520' },
  },
  {
    name: 'altered number: length',
    sources: [bridge],
    output: 'The bridge is 230 metres long and cost 18 million dollars.',
    defect: { type: 'number-not-in-sources', span: '230' },
  },
  {
    name: 'altered date: warehouse',
    sources: [acme],
    output: 'The company opened a warehouse in Rotterdam on 21 March 2024.',
    defect: { type: 'date-not-in-sources', span: '21 March 2024' },
  },
  {
    name: 'altered date: ISO',
    sources: [bridge],
    output: 'Construction of the Elm Street bridge began on 2023-06-02.',
    defect: { type: 'date-not-in-sources', span: '2023-06-02' },
  },
  {
    name: 'altered date: launch year',
    sources: [launch],
    output: 'The Orion satellite launched from Kourou on 5 September 2021.',
    defect: { type: 'date-not-in-sources', span: '5 September 2021' },
  },

  // Misquotes: quoted words not in any source verbatim.
  {
    name: 'misquote: growth',
    sources: [acme],
    output: 'Maria Lopez said "we expect strong growth next year" during the call.',
    defect: { type: 'quotation-not-found', span: '"we expect strong growth next year"' },
  },
  {
    name: 'misquote: launch',
    sources: [launch],
    output: 'Hannah Vogel described the launch as "perfect in every respect".',
    defect: { type: 'quotation-not-found', span: '"perfect in every respect"' },
  },
  {
    name: 'misquote: invented quote',
    sources: [clinic],
    output: 'Dr. Samuel Okafor leads the emergency department and said “triage saved lives”.',
    defect: { type: 'quotation-not-found', span: '“triage saved lives”' },
  },
  {
    name: 'misquote: curly quotes of a changed phrase',
    sources: [outage],
    output: 'Engineers traced the fault to “a faulty load balancer”.',
    defect: { type: 'quotation-not-found', span: '“a faulty load balancer”' },
  },
  {
    name: 'misquote: truncated and altered',
    sources: [acme],
    output: 'The chief executive said "growth will be steady".',
    defect: { type: 'quotation-not-found', span: '"growth will be steady"' },
  },

  // Invented entities.
  {
    name: 'invented entity: other CEO',
    sources: [acme],
    output: 'Chief executive Peter Jansen said revenue for the third quarter was 4.2 million euros.',
    defect: { type: 'entity-not-in-sources', span: 'Peter Jansen' },
  },
  {
    name: 'invented entity: city',
    sources: [acme],
    output: 'The company opened a warehouse in Antwerp on 12 March 2024.',
    defect: { type: 'entity-not-in-sources', span: 'Antwerp' },
  },
  {
    name: 'invented entity: doctor',
    sources: [clinic],
    output: 'Dr. Helen Park leads the emergency department at the Northfield clinic.',
    defect: { type: 'entity-not-in-sources', span: 'Helen Park' },
  },
  {
    name: 'invented entity: launch site',
    sources: [launch],
    output: 'The Orion satellite launched from Baikonur on 5 September 2022.',
    defect: { type: 'entity-not-in-sources', span: 'Baikonur' },
  },
  {
    name: 'invented entity: organisation',
    sources: [library],
    output: 'Librarian Tom Becker and the Becker Foundation introduced Sunday opening hours in January 2021.',
    defect: { type: 'entity-not-in-sources', span: 'Foundation' },
  },
];
