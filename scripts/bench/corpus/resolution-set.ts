/**
 * The entity-resolution test set: mentions (name, type, a sentence of context) grouped into gold clusters, with
 * planted aliases of several kinds and look-alikes that must stay apart. Every mention is a surface form; the
 * benchmark measures which surface forms end up as one entity.
 */
import { PEOPLE } from './people';

export type AliasKind = 'canonical' | 'case' | 'legal' | 'diacritics' | 'plural' | 'acronym' | 'initials' | 'typo' | 'qualifier';

export interface Mention {
  name: string;
  type: string;
  description: string;
  /** Gold cluster: mentions with the same cluster are one real-world thing. */
  cluster: string;
  kind: AliasKind;
}

interface Cluster {
  type: string;
  topic: string;
  forms: Array<[string, AliasKind]>;
}

const ORGS: Array<[string, string, string | null]> = [
  // canonical, short legal form, acronym (when the name has initials people use)
  ['International Business Machines Corporation', 'International Business Machines Corp.', 'IBM'],
  ['General Electric Company', 'GENERAL ELECTRIC CO', 'GE'],
  ['Hewlett Packard Enterprise', 'Hewlett Packard Enterprise Inc.', 'HPE'],
  ['Advanced Micro Devices', 'Advanced Micro Devices, Inc.', 'AMD'],
  ['British Broadcasting Corporation', 'British Broadcasting Corp', 'BBC'],
  ['Acme Corporation', 'ACME Corp.', null],
  ['Globex Laboratories', 'Globex Laboratories Ltd', null],
  ['Initech Systems', 'Initech Systems LLC', null],
  ['Umbrella Analytics', 'Umbrella Analytics GmbH', null],
  ['Stark Industries', 'Stark Industries Inc', null],
  ['Wayne Foundation', 'The Wayne Foundation', null],
  ['Cyberdyne Robotics', 'Cyberdyne Robotics AG', null],
  ['Nordic Shipping Group', 'Nordic Shipping Group ASA', 'NSG'],
  ['European Space Agency', 'European Space Agency (Paris)', 'ESA'],
  ['World Health Organization', 'World Health Organization', 'WHO'],
  ['Tesla Motors', 'Tesla Motors Inc', null],
  ['Microsoft Corporation', 'Microsoft Corp', null],
  ['Siemens Healthineers', 'Siemens Healthineers AG', null],
  ['Volkswagen Group', 'Volkswagen Group', 'VWG'],
  ['United Parcel Service', 'United Parcel Service Inc', 'UPS'],
];
const ORG_TYPOS: Record<string, string> = {
  'Microsoft Corporation': 'Microsfot Corporation',
  'Stark Industries': 'Stark Industires',
  'Cyberdyne Robotics': 'Cyberdyne Robotcs',
  'Initech Systems': 'Initech Sytems',
};
const ORG_QUALIFIED: Record<string, string> = { 'Tesla Motors': 'Tesla', 'Siemens Healthineers': 'Siemens Healthineers Division' };

const PLACES: Array<[string, string]> = [
  ['Zürich', 'Zurich'],
  ['São Paulo', 'Sao Paulo'],
  ['Montréal', 'Montreal'],
  ['Köln', 'Koln'],
  ['Malmö', 'Malmo'],
  ['Bogotá', 'Bogota'],
  ['Kraków', 'Krakow'],
  ['Reykjavík', 'Reykjavik'],
  ['Düsseldorf', 'Dusseldorf'],
  ['Curaçao', 'Curacao'],
];

const TECH: Array<[string, string]> = [
  ['Neural Networks', 'neural network'],
  ['Graph Databases', 'graph database'],
  ['Vector Indexes', 'Vector Index'],
  ['Knowledge Graphs', 'knowledge graph'],
  ['Language Models', 'Language Model'],
  ['Message Queues', 'message queue'],
  ['Load Balancers', 'Load Balancer'],
  ['Compilers', 'compiler'],
];

/** Pairs and groups that look alike but are different things (each its own cluster). */
const LOOK_ALIKES: Array<[string, string]> = [
  ['Paris', 'LOCATION'],
  ['Paris Hilton', 'PERSON'],
  ['Jordan', 'LOCATION'],
  ['Michael Jordan', 'PERSON'],
  ['Washington', 'LOCATION'],
  ['George Washington', 'PERSON'],
  ['John Smith', 'PERSON'],
  ['John Smithson', 'PERSON'],
  ['Amazon', 'ORGANIZATION'],
  ['Amazon River', 'LOCATION'],
  ['Apple', 'ORGANIZATION'],
  ['Apple Pie', 'CONCEPT'],
  ['Georgia', 'LOCATION'],
  ['Georgia Tech', 'ORGANIZATION'],
  ['Mercury', 'CONCEPT'],
  ['Freddie Mercury', 'PERSON'],
  ['Lincoln', 'LOCATION'],
  ['Abraham Lincoln', 'PERSON'],
  ['Turing Award', 'CONCEPT'],
  ['Ford Motor Company', 'ORGANIZATION'],
  ['Harrison Ford', 'PERSON'],
  ['Gerald Ford', 'PERSON'],
  ['Java', 'TECHNOLOGY'],
  ['Java Island', 'LOCATION'],
  ['Oracle', 'ORGANIZATION'],
  ['Oracle of Delphi', 'CONCEPT'],
  ['Jaguar', 'ORGANIZATION'],
  ['Jaguar Cat', 'CONCEPT'],
  ['Victoria', 'LOCATION'],
  ['Queen Victoria', 'PERSON'],
  ['Ada', 'TECHNOLOGY'],
  ['Adam Smith', 'PERSON'],
  ['Adams Smith Partners', 'ORGANIZATION'],
  ['Grace Hopper Celebration', 'CONCEPT'],
  ['Claude Monet', 'PERSON'],
  ['Margaret Thatcher', 'PERSON'],
  ['Donald Trump', 'PERSON'],
  ['Nordic Walking', 'CONCEPT'],
  ['General Motors', 'ORGANIZATION'],
  ['General Dynamics', 'ORGANIZATION'],
];

function clusters(): Map<string, Cluster> {
  const out = new Map<string, Cluster>();
  for (const [name, legal, acronym] of ORGS) {
    const forms: Array<[string, AliasKind]> = [
      [name, 'canonical'],
      [legal, 'legal'],
      [name.toUpperCase(), 'case'],
    ];
    if (acronym) forms.push([acronym, 'acronym'], [acronym.split('').join('.') + '.', 'acronym']);
    if (ORG_TYPOS[name]) forms.push([ORG_TYPOS[name], 'typo']);
    if (ORG_QUALIFIED[name]) forms.push([ORG_QUALIFIED[name], 'qualifier']);
    out.set(name, { type: 'ORGANIZATION', topic: 'builds products and employs engineers', forms });
  }
  for (const name of PEOPLE) {
    const [first, ...rest] = name.split(' ');
    const forms: Array<[string, AliasKind]> = [
      [name, 'canonical'],
      [`${first[0]}. ${rest.join(' ')}`, 'initials'],
      [name.toLowerCase(), 'case'],
    ];
    out.set(name, { type: 'PERSON', topic: 'is a computer scientist', forms });
  }
  for (const [accented, plain] of PLACES) {
    out.set(accented, {
      type: 'LOCATION',
      topic: 'is a city with universities',
      forms: [
        [accented, 'canonical'],
        [plain, 'diacritics'],
        [`${plain.toUpperCase()}`, 'case'],
      ],
    });
  }
  for (const [plural, singular] of TECH) {
    out.set(plural, {
      type: 'TECHNOLOGY',
      topic: 'is a software technology',
      forms: [
        [plural, 'canonical'],
        [singular, 'plural'],
      ],
    });
  }
  for (const [name, type] of LOOK_ALIKES) {
    if (!out.has(name)) out.set(name, { type, topic: `is known as ${name}`, forms: [[name, 'canonical']] });
  }
  return out;
}

/**
 * Every surface form, several times each (as several documents would mention it), in a fixed shuffled order:
 * aliases may come before the canonical name.
 */
export function resolutionMentions(repeat = 2): Mention[] {
  const out: Mention[] = [];
  for (const [cluster, c] of clusters()) {
    for (const [name, kind] of c.forms) {
      for (let r = 0; r < repeat; r++) {
        out.push({ name, type: c.type, kind, cluster, description: `${name} ${c.topic}; mention ${r + 1} in the corpus.` });
      }
    }
  }
  // A fixed interleaving (stride through the list), so that clusters are not resolved in one block.
  const stride = 37;
  const order: Mention[] = [];
  const used = new Set<number>();
  for (let i = 0, at = 0; i < out.length; i++, at = (at + stride) % out.length) {
    while (used.has(at)) at = (at + 1) % out.length;
    used.add(at);
    order.push(out[at]);
  }
  return order;
}
