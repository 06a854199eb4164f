/** Names of people the generated benchmark corpora write about (each corpus takes the first n it needs). */
export const PEOPLE = [
  'Ada Lovelace',
  'Alan Turing',
  'Grace Hopper',
  'Claude Shannon',
  'Barbara Liskov',
  'Edsger Dijkstra',
  'Margaret Hamilton',
  'Donald Knuth',
  'Katherine Johnson',
  'John McCarthy',
  'Frances Allen',
  'Ken Thompson',
  'Radia Perlman',
  'Leslie Lamport',
  'Tim Berners-Lee',
  'Hedy Lamarr',
];
