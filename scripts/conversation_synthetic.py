"""A conversation-like text generator for scale benchmarks (LoCoMo shape: chat turns between two people).

Each conversation is one project of two speakers who talk in sessions on dated days. A turn is
``"{speaker}: {sentence}"`` + `` (said on {date})``, as ``scripts/retrieval_eval/conversational.py`` stores
LoCoMo turns. Sentences come from templates filled with everyday English: each conversation favours a
few topics (Zipf), each topic has its own nouns, places and activities, and names, pets, places and
numbers recur inside a conversation, so a store of many conversations has many mid-frequency concepts
that are local to a project and a long tail of rare ones, like real chat logs. Queries are 2–4 content
words of one stored turn, as in ``synthetic.queries``.

>>> turns = list(observations(3, seed=1))
>>> [sorted(turn) for turn in turns[:1]]
[['content', 'kind', 'project']]
>>> all(str(t["content"]).split(":")[0] in _PEOPLE for t in turns)
True
"""

from __future__ import annotations

import random
from collections.abc import Iterator

__all__ = ["observations", "queries"]

_PEOPLE = ["Caroline", "Melanie", "Jon", "Gina", "John", "Maria", "Joanna", "Nate", "Tim", "Audrey", "Andrew",
           "Deborah", "Evan", "Sam", "Calvin", "Dave", "Jolene", "James", "Priya", "Omar", "Lena", "Marco",
           "Hiro", "Fatima", "Grace", "Leo", "Nina", "Tomas", "Aisha", "Ben", "Chloe", "Diego", "Elena",
           "Felix", "Hannah", "Ivan", "Julia", "Kofi", "Lucia", "Mei", "Noah", "Olga", "Pablo", "Rosa",
           "Sofia", "Theo", "Uma", "Victor", "Wen", "Yara", "Zoe", "Ravi", "Ingrid", "Kai", "Amara", "Bruno"]
_PETS = ["Max", "Luna", "Bella", "Charlie", "Milo", "Daisy", "Rocky", "Coco", "Oscar", "Pepper", "Biscuit"]
_CITIES = ["Boston", "Seattle", "Lisbon", "Kyoto", "Nairobi", "Denver", "Austin", "Prague", "Toronto", "Oslo",
           "Lagos", "Madrid", "Chicago", "Portland", "Dublin", "Hanoi", "Sydney", "Vienna", "Lima", "Seoul"]
_MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
           "November", "December"]
_TOPICS: dict[str, tuple[list[str], list[str], list[str]]] = {  # things, places, activities
    "painting": (["canvas", "watercolor set", "sunset painting", "portrait", "brush", "sketchbook", "mural"],
                 ["art class", "gallery", "studio"], ["paint landscapes", "sketch outdoors", "try acrylics"]),
    "running": (["marathon", "running shoes", "training plan", "half marathon", "personal best", "knee brace"],
                ["trail", "park", "track"], ["run every morning", "train for a race", "stretch after runs"]),
    "cooking": (["lasagna", "sourdough bread", "curry recipe", "birthday cake", "cookbook", "cast iron pan"],
                ["farmers market", "kitchen", "cooking class"], ["bake bread", "try new recipes", "cook dinner"]),
    "music": (["guitar", "piano lesson", "concert ticket", "new album", "violin", "songwriting notebook"],
              ["concert hall", "music festival", "band practice"], ["play guitar", "write songs", "practice scales"]),
    "family": (["family reunion", "wedding photo", "baby shower", "grandmother", "little brother", "cousin"],
               ["parents' house", "family cabin", "hometown"], ["visit family", "plan the reunion", "call my mom"]),
    "work": (["promotion", "job interview", "quarterly report", "new manager", "startup idea", "client meeting"],
             ["office", "coworking space", "conference"], ["finish the project", "pitch investors", "work late"]),
    "school": (["research paper", "final exam", "scholarship", "chemistry class", "thesis draft", "study group"],
               ["library", "campus", "lecture hall"], ["study for exams", "write my thesis", "take night classes"]),
    "pets": (["puppy", "vet appointment", "dog leash", "cat tree", "adoption papers", "aquarium"],
             ["dog park", "animal shelter", "pet store"],
             ["walk the dog", "volunteer at the shelter", "train the puppy"]),
    "travel": (["plane ticket", "road trip", "passport", "camping gear", "travel journal", "hostel booking"],
               ["beach", "mountains", "national park"], ["go hiking", "explore the old town", "camp by the lake"]),
    "health": (["yoga mat", "therapy session", "meditation app", "new diet", "sleep schedule", "doctor visit"],
               ["gym", "yoga studio", "clinic"], ["meditate daily", "lift weights", "take long walks"]),
    "community": (["charity run", "pride parade", "fundraiser", "support group", "food drive", "town meeting"],
                  ["community center", "church", "shelter"], ["volunteer on weekends", "mentor teenagers",
                                                                "organize a fundraiser"]),
    "reading": (["novel", "poetry book", "book club pick", "memoir", "fantasy series", "library card"],
                ["bookstore", "book club", "reading nook"], ["read before bed", "join a book club", "write reviews"]),
    "gaming": (["video game", "board game", "gaming console", "puzzle", "tournament", "chess set"],
               ["game night", "arcade", "online server"], ["play chess", "stream games", "host game night"]),
    "gardening": (["tomato plants", "herb garden", "rose bush", "compost bin", "seed packets", "greenhouse"],
                  ["backyard", "community garden", "nursery"], ["plant vegetables", "prune the roses",
                                                                  "grow herbs"]),
    "home": (["new apartment", "couch", "renovation", "lease", "bookshelf", "kitchen remodel"],
             ["neighborhood", "hardware store", "flea market"], ["move out", "paint the walls", "fix the sink"]),
    "photography": (["camera lens", "photo album", "tripod", "film roll", "drone", "photo contest"],
                    ["photo walk", "darkroom", "exhibition"], ["shoot portraits", "edit photos", "print photos"]),
}
_FEELINGS = ["excited", "nervous", "proud", "tired", "grateful", "happy", "stressed", "relieved", "curious",
             "inspired", "overwhelmed", "hopeful"]
_TIMES = ["yesterday", "last week", "last weekend", "this morning", "a few days ago", "last month", "tonight"]
_TEMPLATES = [
    "I {went} to the {place} {time} and it was {adj}!",
    "Guess what, I finally got a {thing}. I'm so {feeling} about it.",
    "{friend} and I want to {activity} next month, maybe in {city}.",
    "Have you ever tried to {activity}? I started {time}.",
    "That sounds {adj}! How did the {thing} turn out?",
    "My {relative} gave me a {thing} for my birthday, which was so sweet.",
    "I've been feeling {feeling} lately because of the {thing}.",
    "We took {pet} to the {place} {time}; {pet} loved it.",
    "I'm thinking about moving to {city} for a {thing}.",
    "It took me {number} weeks to finish the {thing}, but I'm {feeling} now.",
    "Thanks, {friend}! I'll tell you more about the {thing} when we meet at the {place}.",
    "Do you still {activity}? I remember you loved it.",
    "The {place} in {city} had a {adj} {thing} on display.",
    "I signed up to {activity} with my {relative} every {weekday}.",
    "Honestly the {thing} was harder than I expected, but {friend} helped a lot.",
    "I read that people who {activity} sleep better, so I'm giving it a try.",
    "We spent {number} hours at the {place} and forgot about the {thing}.",
    "My {relative} is {feeling} because the {thing} got cancelled.",
]
_WENT = ["went", "drove", "walked", "headed", "biked"]
_ADJ = ["amazing", "relaxing", "chaotic", "beautiful", "exhausting", "fun", "surprising", "peaceful", "crowded"]
_RELATIVES = ["mom", "dad", "sister", "brother", "grandma", "aunt", "uncle", "partner", "kids", "roommate"]
_WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
_STOP = {"i", "i'm", "i've", "i'll", "the", "a", "an", "and", "to", "of", "in", "on", "at", "for", "it", "was",
         "so", "my", "we", "you", "me", "about", "with", "that", "this", "but", "did", "how", "have", "your"}


class _Conversation:
    def __init__(self, index: int, rng: random.Random) -> None:
        self.project = f"conv-{index}"
        self.speakers = rng.sample(_PEOPLE, 2)
        topics = list(_TOPICS)
        rng.shuffle(topics)
        self.topics = topics[:5]  # a conversation keeps coming back to a handful of topics
        self.pet = rng.choice(_PETS)
        self.city = rng.choice(_CITIES)
        self.year = rng.randint(2019, 2025)
        self.day = rng.randint(0, 300)


def _turn(conv: _Conversation, speaker: int, rng: random.Random) -> str:
    topic = rng.choices(conv.topics, [1.0 / (rank + 1) for rank in range(len(conv.topics))])[0]
    things, places, activities = _TOPICS[topic]
    values = {"went": rng.choice(_WENT), "place": rng.choice(places), "time": rng.choice(_TIMES),
              "adj": rng.choice(_ADJ), "thing": rng.choice(things), "feeling": rng.choice(_FEELINGS),
              "friend": conv.speakers[1 - speaker], "activity": rng.choice(activities),
              "city": conv.city if rng.random() < 0.7 else rng.choice(_CITIES), "pet": conv.pet,
              "relative": rng.choice(_RELATIVES), "number": str(rng.randint(2, 12)),
              "weekday": rng.choice(_WEEKDAYS)}
    text = rng.choice(_TEMPLATES).format(**values)
    if rng.random() < 0.3:  # a second sentence, often on another topic
        text += " " + _turn(conv, speaker, rng).split(": ", 1)[1].split(" (said on")[0]
    day = conv.day
    date = f"{day % 28 + 1} {_MONTHS[(day // 28) % 12]} {conv.year + day // 336}"
    return f"{conv.speakers[speaker]}: {text} (said on {date})"


def observations(count: int, *, seed: int = 13, turns_per_conversation: int = 600) -> Iterator[dict[str, object]]:
    """``count`` chat turns ready for ``MemoryService.store_many``: one project per conversation of
    ``turns_per_conversation`` turns, sessions of 10–30 turns a few days apart."""
    rng = random.Random(seed)
    conv = _Conversation(0, rng)
    left_in_session = rng.randint(10, 30)
    for n in range(count):
        if n and n % turns_per_conversation == 0:
            conv = _Conversation(n // turns_per_conversation, rng)
        if left_in_session == 0:
            conv.day += rng.randint(1, 9)
            left_in_session = rng.randint(10, 30)
        left_in_session -= 1
        yield {"content": _turn(conv, n % 2, rng), "kind": "note", "project": conv.project}


def queries(records: list[dict[str, object]], count: int, *, seed: int = 11) -> list[str]:
    """Queries of 2–4 content words taken from random stored turns."""
    rng = random.Random(seed)
    picked = []
    for _ in range(count):
        text = str(rng.choice(records)["content"]).split(": ", 1)[1].split(" (said on")[0]
        tokens = [t.strip(".,!?;") for t in text.lower().split()]
        tokens = [t for t in tokens if t not in _STOP and len(t) > 3]
        picked.append(" ".join(rng.sample(tokens, min(len(tokens), rng.randint(2, 4)))))
    return picked
