/**
 * The prose corpus of the side-by-side benchmark: eight encyclopedia-style articles on well-documented subjects,
 * written for this benchmark in the plain register of a reference work, and questions whose answer is one
 * sentence of an article (quoted exactly, so a context either holds it or not).
 */

export interface Article {
  title: string;
  content: string;
}

const paragraphs = (...ps: string[]) => ps.join('\n\n');

export const ARTICLES: Article[] = [
  {
    title: 'Ada Lovelace',
    content: paragraphs(
      'Augusta Ada King, Countess of Lovelace, was an English mathematician and writer born in London on 10 December 1815. She was the only legitimate child of the poet Lord Byron and Anne Isabella Milbanke. Her parents separated a few weeks after her birth, and Lord Byron left England a few months later; he died in Greece when Ada was eight years old.',
      'Anne Isabella Milbanke, who had a keen interest in mathematics herself, arranged for her daughter to be tutored in mathematics and science. Among her teachers were William Frend, William King and later Augustus De Morgan, the first professor of mathematics at University College London. Mary Somerville, the Scottish astronomer and mathematician, became a friend and correspondent.',
      'In June 1833, at a party given by Charles Babbage, Ada met the inventor of the Difference Engine, a mechanical calculator for tabulating polynomial functions. Babbage later designed a far more general machine, the Analytical Engine, which was to be programmed with punched cards borrowed from the Jacquard loom. Ada and Babbage corresponded for many years about mathematics and about his machines.',
      "In 1842 the Italian engineer Luigi Menabrea published a paper in French describing the Analytical Engine, based on a lecture Babbage had given in Turin. Ada translated the paper into English for Taylor's Scientific Memoirs and added a series of notes, labelled A to G, that were three times as long as the original article. The translation and notes were published in 1843 under her initials, A.A.L.",
      'Note G describes an algorithm for the Analytical Engine to compute Bernoulli numbers. It is often called the first computer program, because it was written for a machine that was never built and sets out the sequence of operations step by step. In the same notes Ada suggested that the engine might act upon things other than numbers, such as musical notes, if their relations could be expressed in symbols.',
      'Ada married William King in 1835; he became Earl of Lovelace in 1838, and she became Countess of Lovelace. The couple had three children. Ada suffered from poor health for much of her life and died of uterine cancer on 27 November 1852, at the age of 36. At her request she was buried beside her father in the Church of St Mary Magdalene in Hucknall, Nottinghamshire.',
      'Her work was rediscovered in the twentieth century, when B. V. Bowden republished her notes in 1953. The United States Department of Defense named the programming language Ada after her in 1980. Ada Lovelace Day, held on the second Tuesday of October, celebrates the achievements of women in science, technology, engineering and mathematics.',
    ),
  },
  {
    title: 'The Rhine',
    content: paragraphs(
      'The Rhine is one of the major rivers of Europe, about 1,230 kilometres long. It rises in the Swiss canton of Graubünden in the southeastern Swiss Alps and flows into the North Sea in the Netherlands. Along its course it forms part of the borders between Switzerland and Liechtenstein, Switzerland and Austria, Switzerland and Germany, and France and Germany.',
      'The river has two headwaters in the Alps, the Anterior Rhine and the Posterior Rhine, which meet at Reichenau. The Alpine Rhine then flows north into Lake Constance, a large lake shared by Germany, Austria and Switzerland. Leaving the lake, the High Rhine runs west past the Rhine Falls at Schaffhausen, the largest waterfall in Europe by volume.',
      'At Basel the river turns north and becomes the Upper Rhine, flowing through a broad rift valley between the Vosges mountains in France and the Black Forest in Germany. Strasbourg, the seat of the European Parliament, lies on the Upper Rhine. The Middle Rhine between Bingen and Bonn cuts a deep gorge through the Rhenish Slate Mountains.',
      'The gorge of the Middle Rhine is known for its castles, vineyards and steep slopes, and has been a UNESCO World Heritage Site since 2002. Near Sankt Goarshausen stands the Lorelei, a slate rock rising about 130 metres above the water. According to a legend made famous by the poet Heinrich Heine, a siren on the rock lured boatmen to their death with her song.',
      'Below Bonn the Lower Rhine flows through Cologne and Düsseldorf and the industrial Ruhr area, where the river Ruhr joins it at Duisburg. The port of Duisburg is one of the largest inland ports in the world. Near the Dutch border the Rhine divides into several branches, including the Waal and the Nederrijn, which form a delta together with the Meuse.',
      'Since Roman times the Rhine has been an important frontier and trade route. The Romans fortified its left bank as part of the Limes, and towns such as Cologne, Mainz and Bonn began as Roman settlements. Today the river is one of the busiest waterways in the world, and the Central Commission for the Navigation of the Rhine, founded in 1815, is the oldest international organisation still in existence.',
    ),
  },
  {
    title: 'Marie Curie',
    content: paragraphs(
      'Marie Salomea Skłodowska-Curie was a Polish and naturalised French physicist and chemist who conducted pioneering research on radioactivity. She was born in Warsaw on 7 November 1867, then part of the Russian Empire. Her father, Władysław Skłodowski, taught mathematics and physics.',
      'Because women could not attend university in Russian-controlled Poland, Maria studied at the clandestine Flying University in Warsaw. In 1891 she moved to Paris to study at the University of Paris, where she earned degrees in physics and mathematics. There she met Pierre Curie, an instructor at the School of Industrial Physics and Chemistry, and they married in 1895.',
      'Following the discovery of X-rays by Wilhelm Röntgen and of uranium rays by Henri Becquerel, Marie Curie chose uranium rays as the subject of her doctoral research. She found that the activity of uranium compounds depended only on the quantity of uranium, and she coined the term radioactivity. Working with Pierre, she announced the discovery of polonium in July 1898, named after her native Poland, and of radium in December 1898.',
      'In 1903 Marie Curie, Pierre Curie and Henri Becquerel shared the Nobel Prize in Physics for their research on radiation phenomena. Marie Curie was the first woman to win a Nobel Prize. Pierre Curie died in a street accident in Paris in 1906, and Marie took over his professorship, becoming the first woman to teach at the University of Paris.',
      'In 1911 she received the Nobel Prize in Chemistry for the discovery of polonium and radium and the isolation of radium. She remains the only person to have won Nobel Prizes in two different sciences. She founded the Radium Institute in Paris, now the Curie Institute, and a sister institute in Warsaw.',
      'During the First World War she developed mobile radiography units, known as petites Curies, to provide X-ray services to field hospitals. Marie Curie died on 4 July 1934 at a sanatorium in Passy, Haute-Savoie, of aplastic anaemia, probably caused by her long exposure to radiation. In 1995 her remains and those of Pierre Curie were moved to the Panthéon in Paris.',
    ),
  },
  {
    title: 'The Hanseatic League',
    content: paragraphs(
      'The Hanseatic League was a commercial and defensive network of merchant guilds and market towns in Central and Northern Europe. It grew from a few North German towns in the late twelfth century and came to dominate trade in the Baltic Sea and the North Sea for three centuries. At its height the league included nearly two hundred towns.',
      'Lübeck, founded in 1143 and refounded by Henry the Lion in 1159, became the leading city of the league and the seat of its assembly, the Hanseatic Diet. Other important members were Hamburg, Bremen, Cologne, Danzig, Riga and Visby on the island of Gotland. The league had no permanent government, army or treasury of its own.',
      'The Hanseatic merchants kept trading posts, called Kontore, in foreign cities. The four principal Kontore were the Steelyard in London, the Peterhof in Novgorod, the Bryggen in Bergen and the Kontor in Bruges. The wharf of Bryggen in Bergen, with its wooden warehouses, is today a UNESCO World Heritage Site.',
      'Merchants of the league traded furs, wax and timber from Russia and the Baltic lands, grain from Prussia, stockfish from Norway, salt from Lüneburg, and woollen cloth from Flanders and England. Their characteristic ship was the cog, a single-masted vessel with a flat bottom that could carry large cargoes.',
      'The league fought a war against King Valdemar IV of Denmark and won it. The Treaty of Stralsund, signed in 1370, gave the Hanseatic towns control of fortresses on the coast of Scania and confirmed their trading privileges. The treaty marked the height of Hanseatic power.',
      'From the fifteenth century the league declined as territorial states grew stronger, Dutch and English merchants competed in the Baltic, and trade routes shifted towards the Atlantic. The last Hanseatic Diet met in Lübeck in 1669 with only a few members present. Hamburg, Bremen and Lübeck kept the title of Hanseatic city, and the car number plates of Hamburg still begin with the letters HH, for Hansestadt Hamburg.',
    ),
  },
  {
    title: 'Photosynthesis',
    content: paragraphs(
      'Photosynthesis is the process by which plants, algae and cyanobacteria convert light energy into chemical energy stored in sugars. In its most common form it uses carbon dioxide and water and releases oxygen as a by-product. Nearly all the oxygen in the atmosphere of the Earth was produced by photosynthesis.',
      'In plants, photosynthesis takes place in chloroplasts, organelles found mainly in the cells of leaves. Chloroplasts contain the green pigment chlorophyll, which absorbs red and blue light and reflects green light. The internal membranes of the chloroplast, called thylakoids, are stacked into structures known as grana.',
      'The process has two stages. In the light-dependent reactions, which take place in the thylakoid membranes, light splits water molecules and the energy is stored in the carriers ATP and NADPH. The oxygen released when water is split is the oxygen that plants give off.',
      'In the second stage, the Calvin cycle, enzymes in the stroma of the chloroplast use ATP and NADPH to fix carbon dioxide into sugar. The key enzyme of the cycle, RuBisCO, is thought to be the most abundant protein on Earth. The cycle is named after Melvin Calvin, who received the Nobel Prize in Chemistry in 1961 for working out its steps with radioactive carbon-14.',
      'Plants in hot and dry climates have evolved variations of the process. C4 plants such as maize and sugarcane first fix carbon dioxide into a four-carbon compound, which reduces the losses caused by photorespiration. CAM plants such as cacti and pineapples open their stomata at night and store carbon dioxide as malic acid for use during the day.',
      'The early history of photosynthesis was worked out by several scientists. Jan van Helmont showed in the seventeenth century that the mass of a willow tree did not come from the soil. Joseph Priestley found in 1771 that a plant could restore air in which a candle had burned out, and Jan Ingenhousz showed in 1779 that light is necessary for this restoration.',
    ),
  },
  {
    title: 'Apollo 11',
    content: paragraphs(
      'Apollo 11 was the American spaceflight that first landed humans on the Moon. The mission was flown by the National Aeronautics and Space Administration, NASA, as part of the Apollo programme. Its crew were the commander Neil Armstrong, the command module pilot Michael Collins and the lunar module pilot Buzz Aldrin.',
      'The Saturn V rocket launched Apollo 11 from the Kennedy Space Center in Florida on 16 July 1969. The spacecraft consisted of the command module Columbia, the service module and the lunar module Eagle. After three days the spacecraft entered lunar orbit, and Armstrong and Aldrin moved into Eagle while Collins remained in Columbia.',
      'Eagle landed in the Sea of Tranquility on 20 July 1969. During the descent the crew received several computer alarms, and Armstrong took manual control to steer past a field of boulders, landing with only seconds of fuel to spare. His words from the surface were reported to Mission Control in Houston: the Eagle has landed.',
      'Neil Armstrong stepped onto the lunar surface about six hours after the landing, followed by Buzz Aldrin about twenty minutes later. Armstrong described the moment as one small step for man, one giant leap for mankind. The two astronauts spent about two and a quarter hours outside the lunar module.',
      'On the surface they planted a flag of the United States, deployed a seismometer and a laser retroreflector, and collected 21.5 kilograms of lunar rock and soil. They left behind a plaque reading that men from the planet Earth first set foot upon the Moon in July 1969. A television camera sent pictures of the moonwalk to an audience of hundreds of millions of people.',
      'Eagle lifted off after about 21 hours on the Moon and docked with Columbia in lunar orbit. The crew splashed down in the Pacific Ocean on 24 July 1969 and were recovered by the aircraft carrier USS Hornet. They spent three weeks in quarantine in case they had brought back lunar microbes. The command module Columbia is displayed at the National Air and Space Museum in Washington.',
    ),
  },
  {
    title: 'The printing press',
    content: paragraphs(
      'The printing press is a device that applies pressure to an inked surface resting upon paper or cloth, transferring the ink. Johannes Gutenberg, a goldsmith from Mainz, developed a printing system with movable metal type around 1440. His invention started the printing revolution in Europe and is regarded as a milestone of the second millennium.',
      'Gutenberg combined several inventions into one system. He devised a hand mould for casting type quickly and precisely from an alloy of lead, tin and antimony. He adapted the screw press used in winemaking, and he developed an oil-based ink that adhered well to metal type.',
      'Printing from movable type had been invented earlier in East Asia. The Chinese artisan Bi Sheng made movable type of baked clay around 1040, and in Korea the book Jikji was printed with movable metal type in 1377. Because Chinese writing uses thousands of characters, movable type was less practical there than with the small alphabet of Latin.',
      'The most famous product of the Gutenberg press is the Gutenberg Bible, printed in Mainz around 1455. About 180 copies were made, some on paper and some on vellum, and 49 are known to survive. Each page has two columns of 42 lines, and the book is therefore also known as the 42-line Bible.',
      'Printing spread rapidly across Europe. By 1500 presses were working in more than 250 cities, and they had produced an estimated twenty million volumes. Venice became the leading centre of printing, where Aldus Manutius introduced italic type and small portable editions of the classics.',
      'The press made books cheaper and more numerous, encouraged literacy and helped standardise languages. It allowed the rapid spread of the ideas of the Renaissance, and the Protestant Reformation spread through printed pamphlets and the translations of the Bible by Martin Luther. William Caxton set up the first printing press in England at Westminster in 1476.',
    ),
  },
  {
    title: 'The Great Barrier Reef',
    content: paragraphs(
      'The Great Barrier Reef is the largest coral reef system in the world. It lies in the Coral Sea off the coast of Queensland in northeastern Australia and stretches for more than 2,300 kilometres. It is composed of over 2,900 individual reefs and 900 islands, and can be seen from outer space.',
      'The reef is built by billions of tiny organisms called coral polyps. The polyps live in symbiosis with algae called zooxanthellae, which give the corals their colours and provide them with food through photosynthesis. The reef supports a great diversity of life, including about 1,500 species of fish, turtles, dolphins, dugongs and many species of seabirds.',
      'Aboriginal Australians and Torres Strait Islanders have known and used the reef for tens of thousands of years. The British explorer James Cook ran his ship HMS Endeavour aground on the reef in June 1770 and had to repair it at the site of what is now Cooktown.',
      'Much of the reef is protected by the Great Barrier Reef Marine Park, established in 1975 and managed by the Great Barrier Reef Marine Park Authority. The reef was selected as a World Heritage Site in 1981. Tourism to the reef is an important part of the economy of Queensland, with visitors travelling from Cairns, Townsville and the Whitsunday Islands.',
      'The greatest threat to the reef is climate change. When sea temperatures stay too high, corals expel their algae and turn white, a process known as coral bleaching. Mass bleaching events struck the reef in 1998, 2002, 2016, 2017, 2020 and 2022. Other threats include runoff of sediment and fertiliser from farms and outbreaks of the crown-of-thorns starfish, which feeds on coral polyps.',
    ),
  },
];

export const ARTICLE_QUESTIONS: Array<{ question: string; answer: string }> = [
  {
    question: 'Which algorithm did Ada Lovelace describe in Note G?',
    answer: 'Note G describes an algorithm for the Analytical Engine to compute Bernoulli numbers.',
  },
  {
    question: 'When did Ada Lovelace meet Charles Babbage?',
    answer:
      'In June 1833, at a party given by Charles Babbage, Ada met the inventor of the Difference Engine, a mechanical calculator for tabulating polynomial functions.',
  },
  {
    question: 'What was named after Ada Lovelace in 1980?',
    answer: 'The United States Department of Defense named the programming language Ada after her in 1980.',
  },
  {
    question: 'Where is Ada Lovelace buried?',
    answer: 'At her request she was buried beside her father in the Church of St Mary Magdalene in Hucknall, Nottinghamshire.',
  },
  {
    question: 'Which is the largest waterfall in Europe by volume?',
    answer: 'Leaving the lake, the High Rhine runs west past the Rhine Falls at Schaffhausen, the largest waterfall in Europe by volume.',
  },
  {
    question: 'What is the Lorelei?',
    answer: 'Near Sankt Goarshausen stands the Lorelei, a slate rock rising about 130 metres above the water.',
  },
  {
    question: 'Where does the Ruhr join the Rhine?',
    answer:
      'Below Bonn the Lower Rhine flows through Cologne and Düsseldorf and the industrial Ruhr area, where the river Ruhr joins it at Duisburg.',
  },
  {
    question: 'What is the oldest international organisation still in existence?',
    answer:
      'Today the river is one of the busiest waterways in the world, and the Central Commission for the Navigation of the Rhine, founded in 1815, is the oldest international organisation still in existence.',
  },
  {
    question: 'When did Marie Curie announce the discovery of polonium and radium?',
    answer:
      'Working with Pierre, she announced the discovery of polonium in July 1898, named after her native Poland, and of radium in December 1898.',
  },
  {
    question: 'Why did Marie Curie receive the Nobel Prize in Chemistry?',
    answer: 'In 1911 she received the Nobel Prize in Chemistry for the discovery of polonium and radium and the isolation of radium.',
  },
  {
    question: 'What were the petites Curies?',
    answer:
      'During the First World War she developed mobile radiography units, known as petites Curies, to provide X-ray services to field hospitals.',
  },
  {
    question: 'Where did Maria Skłodowska study in Warsaw?',
    answer:
      'Because women could not attend university in Russian-controlled Poland, Maria studied at the clandestine Flying University in Warsaw.',
  },
  {
    question: 'What were the four principal Kontore of the Hanseatic League?',
    answer:
      'The four principal Kontore were the Steelyard in London, the Peterhof in Novgorod, the Bryggen in Bergen and the Kontor in Bruges.',
  },
  {
    question: 'What did the Treaty of Stralsund give the Hanseatic towns?',
    answer:
      'The Treaty of Stralsund, signed in 1370, gave the Hanseatic towns control of fortresses on the coast of Scania and confirmed their trading privileges.',
  },
  {
    question: 'What was the cog of the Hanseatic merchants?',
    answer: 'Their characteristic ship was the cog, a single-masted vessel with a flat bottom that could carry large cargoes.',
  },
  {
    question: 'When did the last Hanseatic Diet meet?',
    answer: 'The last Hanseatic Diet met in Lübeck in 1669 with only a few members present.',
  },
  {
    question: 'What does chlorophyll absorb?',
    answer: 'Chloroplasts contain the green pigment chlorophyll, which absorbs red and blue light and reflects green light.',
  },
  {
    question: 'Why was Melvin Calvin awarded the Nobel Prize in Chemistry?',
    answer:
      'The cycle is named after Melvin Calvin, who received the Nobel Prize in Chemistry in 1961 for working out its steps with radioactive carbon-14.',
  },
  {
    question: 'How do CAM plants such as cacti store carbon dioxide?',
    answer:
      'CAM plants such as cacti and pineapples open their stomata at night and store carbon dioxide as malic acid for use during the day.',
  },
  {
    question: 'What did Joseph Priestley find in 1771?',
    answer:
      'Joseph Priestley found in 1771 that a plant could restore air in which a candle had burned out, and Jan Ingenhousz showed in 1779 that light is necessary for this restoration.',
  },
  {
    question: 'Where did the Eagle land on the Moon?',
    answer: 'Eagle landed in the Sea of Tranquility on 20 July 1969.',
  },
  {
    question: 'How much lunar rock did the Apollo 11 astronauts collect?',
    answer:
      'On the surface they planted a flag of the United States, deployed a seismometer and a laser retroreflector, and collected 21.5 kilograms of lunar rock and soil.',
  },
  {
    question: 'Which ship recovered the Apollo 11 crew?',
    answer: 'The crew splashed down in the Pacific Ocean on 24 July 1969 and were recovered by the aircraft carrier USS Hornet.',
  },
  {
    question: 'Which alloy did Gutenberg cast his type from?',
    answer: 'He devised a hand mould for casting type quickly and precisely from an alloy of lead, tin and antimony.',
  },
  {
    question: 'How many copies of the Gutenberg Bible survive?',
    answer: 'About 180 copies were made, some on paper and some on vellum, and 49 are known to survive.',
  },
  {
    question: 'Who made movable type of baked clay?',
    answer:
      'The Chinese artisan Bi Sheng made movable type of baked clay around 1040, and in Korea the book Jikji was printed with movable metal type in 1377.',
  },
  {
    question: 'Where did William Caxton set up his printing press?',
    answer: 'William Caxton set up the first printing press in England at Westminster in 1476.',
  },
  {
    question: 'What happened to HMS Endeavour at the Great Barrier Reef?',
    answer:
      'The British explorer James Cook ran his ship HMS Endeavour aground on the reef in June 1770 and had to repair it at the site of what is now Cooktown.',
  },
  {
    question: 'What is coral bleaching?',
    answer: 'When sea temperatures stay too high, corals expel their algae and turn white, a process known as coral bleaching.',
  },
  {
    question: 'When was the Great Barrier Reef Marine Park established?',
    answer:
      'Much of the reef is protected by the Great Barrier Reef Marine Park, established in 1975 and managed by the Great Barrier Reef Marine Park Authority.',
  },
];
