"""The built-in model's words, written for this project (no outside word list, no licence questions).

Every word is lower case. Each list has one grammatical role in the grammar
(see ``grammar.py``); a word belongs to one list only, which ``tests`` check.
"""
from __future__ import annotations

FEMALE_NAMES = """anna mia emma lily zoe nora lucy ella ruby ivy sara julia clara alice rosa maya lena eva
nina hana grace kate leah amy jane mary olga ines iris wendy""".split()

MALE_NAMES = """tom ben sam max leo jack noah liam omar ivan paul mark hugo luke adam theo felix oscar
ravi kofi diego marco yuri eli finn owen carl dan pete ray""".split()

#: Each animal and the one thing it does after "it" (the verb tells which animal "it" is).
ANIMAL_VERBS = {
    "dog": "barked", "cat": "purred", "bird": "sang", "cow": "mooed", "duck": "quacked",
    "horse": "neighed", "lion": "roared", "owl": "hooted", "frog": "croaked", "sheep": "bleated",
    "wolf": "howled", "bee": "buzzed", "snake": "hissed", "pig": "grunted", "mouse": "squeaked",
    "goat": "jumped", "fish": "swam", "rabbit": "hopped", "monkey": "climbed", "bear": "growled",
}

#: What a person does after "she" or "he" in the pronoun sentences.
PERSON_VERBS = {"she": "smiled", "he": "laughed"}

#: Verbs that join two beings: "anna saw the dog", "the cat followed tom".
MEETING_VERBS = """saw met followed noticed watched heard helped chased visited called""".split()

#: Things that can be one or many, with their plural ("key" -> "keys"); used in agreement and stories.
NOUN_PLURALS = {
    "key": "keys", "cabinet": "cabinets", "book": "books", "box": "boxes", "table": "tables",
    "chair": "chairs", "lamp": "lamps", "door": "doors", "window": "windows", "cup": "cups",
    "plate": "plates", "bottle": "bottles", "basket": "baskets", "bag": "bags", "coat": "coats",
    "hat": "hats", "shoe": "shoes", "sock": "socks", "glove": "gloves", "ring": "rings",
    "coin": "coins", "stamp": "stamps", "letter": "letters", "card": "cards", "map": "maps",
    "picture": "pictures", "clock": "clocks", "watch": "watches", "pencil": "pencils", "pen": "pens",
    "brush": "brushes", "toy": "toys", "ball": "balls", "kite": "kites", "drum": "drums",
    "bell": "bells", "candle": "candles", "blanket": "blankets", "pillow": "pillows", "towel": "towels",
    "spoon": "spoons", "fork": "forks", "knife": "knives", "bowl": "bowls", "pot": "pots",
    "jar": "jars", "shelf": "shelves", "drawer": "drawers", "mirror": "mirrors", "painting": "paintings",
    "flower": "flowers", "tree": "trees", "leaf": "leaves", "stone": "stones", "shell": "shells",
    "apple": "apples", "banana": "bananas", "orange": "oranges", "lemon": "lemons", "pear": "pears",
    "cake": "cakes", "cookie": "cookies", "sandwich": "sandwiches", "egg": "eggs", "potato": "potatoes",
    "tomato": "tomatoes", "carrot": "carrots", "onion": "onions", "bean": "beans", "nut": "nuts",
    "car": "cars", "bike": "bikes", "boat": "boats", "train": "trains", "truck": "trucks",
    "wheel": "wheels", "rope": "ropes", "ladder": "ladders", "bucket": "buckets", "hammer": "hammers",
    "nail": "nails", "screw": "screws", "tool": "tools", "wire": "wires", "button": "buttons",
    "photo": "photos", "poem": "poems", "song": "songs", "story": "stories", "note": "notes",
    "gift": "gifts", "parcel": "parcels", "ticket": "tickets", "badge": "badges", "flag": "flags",
    "tent": "tents", "umbrella": "umbrellas", "jacket": "jackets", "scarf": "scarves", "boot": "boots",
    "desk": "desks", "sofa": "sofas", "bed": "beds", "rug": "rugs", "curtain": "curtains",
    "fence": "fences", "gate": "gates", "wall": "walls", "roof": "roofs", "step": "steps",
    "tower": "towers", "bridge": "bridges", "road": "roads", "path": "paths", "hill": "hills",
    "island": "islands", "cloud": "clouds", "star": "stars", "planet": "planets", "rock": "rocks",
    "feather": "feathers", "bone": "bones", "nest": "nests", "web": "webs", "seed": "seeds",
    "violin": "violins", "guitar": "guitars", "piano": "pianos", "trumpet": "trumpets", "flute": "flutes",
    "robot": "robots", "puzzle": "puzzles", "game": "games", "doll": "dolls", "marble": "marbles",
    "cushion": "cushions", "vase": "vases", "kettle": "kettles", "oven": "ovens", "fridge": "fridges",
    "phone": "phones", "radio": "radios", "camera": "cameras", "computer": "computers", "screen": "screens",
    "envelope": "envelopes", "folder": "folders", "notebook": "notebooks", "crayon": "crayons", "ruler": "rulers",
}

#: Small words between the subject and its verb: "the keys to the old cabinet are".
PREPOSITIONS = """to on near by behind under beside above below from with for inside outside""".split()

ADJECTIVES = """old new big small red blue green yellow white black brown pink purple grey golden silver
wooden tiny huge heavy light dark bright clean dirty soft hard warm cold wet dry round square long short
tall low high empty full broken shiny dusty rusty striped spotted plain fancy cheap strange lovely
quiet loud sweet sour fresh stale smooth rough thin thick narrow wide famous secret lucky funny
gentle brave calm busy lazy happy sad proud sleepy hungry""".split()

#: Where things happen: "at the park", "in the garden".
PLACES = """park garden kitchen school library market river forest beach station harbour museum
village city farm field lake mountain valley shop bakery office hospital castle palace cave
zoo circus theatre cinema cafe hotel airport street studio church hall yard barn attic cellar
playground bathroom bedroom garage""".split()

#: Verbs that end a sentence about a thing: "the keys are old", stories' own verbs.
STORY_VERBS = """gave showed sent brought lent sold""".split()
FINDING_VERBS = """found lost bought dropped hid painted carried kept mended wrapped""".split()

#: Small words of the grammar itself.
FUNCTION_WORDS = """the a an at in is are was were has have later and then again it she he they
this that there here what who where""".split()

#: More words, only ever seen in the repeated runs of random words (so the vocabulary is big enough
#: that copying has to be learnt as copying, not as a memorised list).
EXTRA_WORDS = """ability absence academy accent access accident account acid action actor address advice afternoon
age agency agent air alarm album alley amount angle ankle answer ant apartment apron arch area arm
army arrow art article artist ash atom aunt autumn avenue award baby back bacon badger baker balance
balloon band bank bar bark base basin bath battery battle beam beard beast beauty beetle beginning
belt bench berry bill biscuit bit blade blood blossom board body bolt bomb bonnet border bottom
branch brass bread breakfast breath brick bride broom brother bubble budget bulb bull bunch burger
bus bush butter cabin cable cage camel camp canal candy cannon canvas cap captain carpet cart cash
cattle ceiling cell cent centre chain chalk champion channel chapter charge cheek cheese chef cherry
chest chicken chief child chimney chin chip choice circle citizen class clay cliff climate cloth
clown club coach coal coast cobweb cocoa coffee collar colour comb comet comfort committee company
compass concert cook copper cord corn corner cotton cough council country couple course court cousin
cover crab crack cradle crane crayfish cream creek crew cricket crime crop cross crow crowd crown
crumb crystal cube cuff curve customer cycle dance danger daughter dawn day deer degree dentist
desert design dessert detail diamond diary dinner dinosaur dish distance diver doctor dolphin donkey
dot dragon drawing dream dress drink driver drop dust eagle ear earth edge elbow elephant engine
error evening event exam example eye face factory fairy family fan farmer fashion father fault fear
feast fiddle figure film finger fire fist flame flash fleet flight flood floor flour fog food foot
forehead fountain fox frame friend frost fruit fuel fur garlic gas ghost giant giraffe girl glass
glue goal gold goose grain grape grass gravel guard guest guide gull hair hamster hand handle harp
harvest hawk head heart hedge helmet hero hole holiday honey hood hook hope horn hose hour house
hunter ice idea inch ink insect iron jam jeans jelly jewel job joke journey judge juice jungle
kangaroo kennel kid king kitten knee knot label lace lady lamb land lane lantern lap laugh lawn lead
lesson level lid lift limb line linen lip liquid list lock log loop lunch machine magnet maid mail
man manager mango maple marsh mask mat meal meat medal melon member metal meter middle milk mill
mind mine minute mist mitten moment money month moon morning moss moth mother motor mouth mud mug
muscle music name napkin nation neck needle neighbour net news night noise noodle north nose number
nurse oak oar ocean officer oil opera orchard organ owner pack pad page pail pain paint pair pan
panda paper parent parrot party pasta paste patch pea peach peak pearl pedal penguin pepper person
pet pie piece pilot pin pipe pirate pit pizza place plane plant plastic plum pocket point pole
police pond pony pool porch port post powder power prince princess prize pudding pump pupil puppy
purse queen question quilt race rail rain rainbow rake rat reason record reward rhythm rib rice
riddle rocket room root rose route row rubber rule sail sailor salad salt sand saucer sausage scale
science scissors sea season seat shade shadow shape shark shirt shore shoulder side sign silk singer
sink sister skate skin skirt sky sled sleep sleeve slide slope smoke snail snow soap soup space
spade spark spider sponge spring spy squirrel stage stairs steam steel stem stick sting stitch
stomach storm stove straw stream string student sugar suit summer sun supper swan sweater swing
sword tail tank tape taste taxi tea teacher team tear teeth temple test thread throat thumb thunder
tiger tile time tin toast toe tongue tooth torch town track tractor trail tray treasure tribe trick
trip trouble tub tulip tunnel turkey turtle twig uncle uniform van vegetable veil vest view vine
voice volcano wagon waist walnut wand war wave wax weather week whale wheat whistle wind wing winter
wish witch wizard woman wood wool word worm wrist yarn year yolk zebra zip""".split()

PUNCTUATION = [".", ",", "?", "!"]
