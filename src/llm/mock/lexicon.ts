/** Word lists behind the mock provider's rules. Small on purpose: the mock is deterministic, not clever. */

const set = (words: string): ReadonlySet<string> =>
  new Set(
    words
      .trim()
      .split(/\s+/)
      .map((w) => w.toLowerCase()),
  );

/** Capitalised words that start sentences without naming anything. */
export const SENTENCE_STARTERS = set(`
  a an the this that these those it its he she they we i you his her their our my your there here
  in on at for from with without to of by as if when while after before during since until although though
  however moreover furthermore also then thus so but and or nor yet because therefore meanwhile
  what which who whom whose how why where some many most all each every both such no not yes one two
  today yesterday tomorrow later earlier first second third finally next last
  according based unlike like despite following given including among between within
`);

export const STOPWORDS = set(`
  a an the this that these those it its he she they we i you his her their our my your there here
  in on at for from with without to of by as if when while after before during since until
  however also then thus so but and or nor yet because therefore
  what which who whom whose how why where some many most all each every both such no not yes
  is are was were be been being am do does did done has have had having can could should would may might must will shall
  into onto over under about above below up down out off again further once than too very just only own same other
  any more less few s t me him them us
  tell explain describe give show list please know known
`);

export const MONTHS_AND_DAYS = set(`
  january february march april may june july august september october november december
  monday tuesday wednesday thursday friday saturday sunday
`);

/** Lower-case words that may sit inside a name: "University of Oxford", "Rio de Janeiro". */
export const NAME_CONNECTORS = set(`of de da del der van von la le for`);

export const PERSON_TITLES = set(`dr mr mrs ms prof professor sir dame lord lady president ceo senator minister king queen`);

export const FIRST_NAMES = set(`
  alice bob carol charlie dave david eve frank grace heidi ivan judy mallory oscar peggy trent victor walter
  john jane mary james robert michael william richard joseph thomas charles daniel matthew anthony mark paul
  steven andrew kenneth joshua kevin brian george edward ronald timothy jason jeffrey ryan jacob gary nicholas
  eric jonathan stephen larry justin scott brandon benjamin samuel patrick alexander jack dennis jerry tyler
  aaron henry peter adam nathan kyle noah ethan jeremy elon bill steve tim sam marie ada alan linus
  patricia jennifer linda elizabeth barbara susan jessica sarah karen nancy lisa betty margaret sandra ashley
  emily donna michelle dorothy amanda melissa deborah stephanie rebecca laura sharon cynthia kathleen amy
  helen anna brenda pamela nicole emma samantha katherine christine rachel catherine janet ruth maria
  heather diane julie joyce victoria olivia kelly christina lauren joan evelyn judith megan andrea hannah
  martha frances gloria ann teresa sara jean julia sophia isabella mia charlotte amelia ella lucas liam
  oliver elijah mateo leo hugo louis marco luca ahmed mohammed wei yuki hiroshi raj priya ravi carlos juan
  jose luis miguel sofia lena max felix nina tom ben ted fred ken claire marta ines omar fatima yusuf
`);

export const ORGANIZATION_WORDS = set(`
  inc corp corporation company co ltd llc plc gmbh ag university institute college foundation agency
  association labs laboratory laboratories bank ministry department council committee organization
  organisation group society academy school hospital union federation commission bureau authority trust
  technologies industries airlines motors partners ventures capital holdings press
`);

export const KNOWN_ORGANIZATIONS = set(`
  google microsoft apple amazon meta ibm nasa openai anthropic tesla netflix intel nvidia amd oracle samsung
  sony toyota siemens spacex un eu who fbi cia mit cern unesco nato
`);

export const TECHNOLOGY_WORDS = set(`
  python javascript typescript java rust golang kotlin swift haskell scala ruby php perl fortran cobol
  kubernetes docker linux unix windows macos android ios react angular vue svelte node.js nodejs deno
  neo4j postgresql postgres mysql sqlite mongodb redis qdrant elasticsearch kafka spark hadoop graphql
  tensorflow pytorch keras langchain llm llms gpt ai ml api apis gpu gpus cpu cpus sql nosql html css http
  https tcp ip dns aws azure gcp blockchain bitcoin ethereum wasm webassembly json xml yaml git github
`);

/** Last words that make a phrase a technology: "Machine Learning", "Graph Database". */
export const TECHNOLOGY_HEADS = set(`
  learning intelligence network networks database databases algorithm algorithms protocol protocols software
  framework frameworks engine engines platform computing cloud robotics model models language languages
  compiler compilers processor processors chip chips graph graphs server servers
`);

export const KNOWN_LOCATIONS = set(`
  paris london berlin tokyo seattle boston chicago beijing shanghai moscow rome madrid amsterdam sydney
  toronto vancouver dublin zurich geneva vienna stockholm oslo copenhagen helsinki munich hamburg singapore
  mumbai delhi bangalore cairo lagos nairobi lisbon prague warsaw athens istanbul dubai seoul texas
  california florida europe asia africa america antarctica australia france germany italy spain portugal
  china japan india russia canada brazil mexico egypt kenya nigeria uk usa switzerland sweden norway
  denmark finland netherlands belgium austria poland greece turkey israel ireland scotland england wales
  korea argentina chile peru colombia oxford cambridge
`);

export const KNOWN_LOCATION_PHRASES = set(`
  new_york san_francisco los_angeles hong_kong mexico_city rio_de_janeiro sao_paulo buenos_aires
  silicon_valley north_america south_america united_states united_kingdom south_korea new_zealand
`);

export const LOCATION_HEADS = set(`
  city river mountain mountains lake island islands street county province valley bay ocean sea desert
  forest coast peninsula region district
`);

/** Common nouns that rule out "Firstname Lastname": "Knowledge Graph", "Peace Prize". */
export const NOT_A_SURNAME = set(`
  graph system systems data theory service services project program act law war award prize center centre
  museum park hall road building party team club conference summit day week report protocol agreement treaty
  festival games cup league championship research science studies review journal times news street
`);

/** Phrases between two entities in a sentence, and the relation keyword each names. */
export const RELATION_PATTERNS: ReadonlyArray<readonly [RegExp, string]> = [
  [/\b(works?|worked|working) with\b|\bcollaborat\w* with\b|\bpartner\w* with\b/, 'works with'],
  [/\b(works?|worked|working) (at|for)\b|\bemployed by\b|\bjoined\b/, 'works at'],
  [/\blocated in\b|\bbased in\b|\bheadquartered in\b|\bsituated in\b/, 'located in'],
  [/\bpart of\b|\bmember of\b|\bdivision of\b|\bsubsidiary of\b|\bbelongs to\b/, 'part of'],
  [/\bfounded\b|\bco-founded\b|\bestablished\b/, 'founded'],
  [/\bcreated\b|\bdeveloped\b|\bbuilt\b|\binvented\b|\bdesigned\b/, 'created'],
  [/\bacquired\b|\bbought\b/, 'acquired'],
  [/\b(leads|led|heads|headed|runs|ran|manages|managed)\b|\bceo of\b/, 'leads'],
  [/\bstudied at\b|\bgraduated from\b/, 'studied at'],
  [/\bborn in\b/, 'born in'],
  [/\b(uses|used|using)\b/, 'uses'],
  [/\bcompetes? with\b|\brival\w*\b/, 'competes with'],
  [/\bmarried\b/, 'married'],
];
