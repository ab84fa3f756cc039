"""Packed names: the projection's names and name → node maps as a snapshot saved them, plus those added since."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from graphmem.store import packed_names
from graphmem.store.packed_names import PackedIndex, PackedStrings, key_index, pack

UNUSUAL = ["", " ", "déjà vu", "Ünïcödé", "k8s", "C++", "数据库", "emoji 🚀", "tab\there", "new\nline",
           "x" * 5000, "mem_01JABCDEF", "a\u0301", "á"]  # the last two: the same letter, not the same string


def _packed(strings: list[str]) -> tuple[PackedStrings, PackedIndex]:
    names = PackedStrings.packed(*pack(strings))
    return names, PackedIndex.packed(names, *key_index(strings, range(len(strings))))


def test_packed_strings_read_back_exactly_including_unusual_characters():
    names, index = _packed(UNUSUAL)
    assert list(names) == UNUSUAL and len(names) == len(UNUSUAL)
    assert [names[at] for at in range(len(UNUSUAL))] == UNUSUAL
    assert names[-1] == "á" and names[1:3] == [" ", "déjà vu"]
    assert {name: index[name] for name in UNUSUAL} == {name: at for at, name in enumerate(UNUSUAL)}
    assert dict(index) == {name: at for at, name in enumerate(UNUSUAL)} and len(index) == len(UNUSUAL)


def test_a_miss_is_a_miss_for_near_names_other_types_and_lone_surrogates():
    _, index = _packed(UNUSUAL)
    for missing in ("déjà", "deja vu", "K8S", "x" * 4999, "\ud800", "a\u0301 "):
        assert missing not in index and index.get(missing) is None and index.get(missing, -1) == -1
        with pytest.raises(KeyError):
            index[missing]
    assert 3 not in index and None not in index
    assert "\ud800" not in PackedIndex({})


def test_a_name_added_after_the_load_is_found_and_iterates_after_the_packed_ones():
    names, index = _packed(["alpha", "beta"])
    names.append("gamma")
    index["gamma"] = 2
    assert index["gamma"] == 2 and "gamma" in index and len(index) == 3 and names[2] == "gamma"
    assert list(index.items()) == [("alpha", 0), ("beta", 1), ("gamma", 2)] and list(index.values()) == [0, 1, 2]
    assert index.setdefault("beta", 9) == 1 and index.setdefault("delta", 3) == 3 and len(index) == 4
    names.append("delta")
    keys, slots = index.state()  # saved: every entry sorted by key, each at its slot (its node)
    reread = PackedIndex.packed(PackedStrings.packed(*names.state()), keys, slots)
    assert dict(reread) == {"alpha": 0, "beta": 1, "gamma": 2, "delta": 3}


def test_a_replaced_entry_is_counted_and_iterated_once():
    _, index = _packed(["alpha", "beta"])
    index["alpha"] = 7
    assert index["alpha"] == 7 and len(index) == 2 and dict(index) == {"alpha": 7, "beta": 1}
    assert list(index.items()) == [("alpha", 7), ("beta", 1)] and list(index.values()) == [7, 1]


def test_names_sharing_a_key_are_told_apart_by_their_text(monkeypatch):
    _, index = _packed(["plumless", "buckeroo", "other"])  # the same CRC-32 and length: the same key
    assert index["plumless"] == 0 and index["buckeroo"] == 1 and "buckaroo" not in index
    monkeypatch.setattr(packed_names, "zlib", SimpleNamespace(crc32=lambda _: 0))  # every name of a length collides
    strings = ["ab", "cd", "ef", "g", "hi"]
    _, index = _packed(strings)
    assert [index[name] for name in strings] == [0, 1, 2, 3, 4]
    assert "zz" not in index and "gh" not in index
    index["jk"] = 5
    assert index["jk"] == 5 and index["hi"] == 4


def test_a_packed_name_is_read_only_and_an_added_one_is_not():
    names = PackedStrings.packed(*pack(["alpha"]))
    names.append("beta")
    names[-1] += "!"
    assert names[1] == "beta!"
    with pytest.raises(TypeError):
        names[0] = "other"
    with pytest.raises(IndexError):
        names[2]


def test_pack_refuses_a_nul_and_a_lone_surrogate():
    with pytest.raises(ValueError, match="NUL"):
        pack(["a\x00b"])
    with pytest.raises(ValueError):  # UnicodeEncodeError
        pack(["\ud800"])


def test_the_compact_form_map_saves_its_own_strings_with_the_added_forms():
    forms = ["roll", "deploy"]
    index = PackedIndex.packed(PackedStrings.packed(*pack(forms)), *key_index(forms, range(2)),
                               values=np.array([40, 41]))
    assert index.setdefault("cach", 42) == 42 and index.setdefault("roll", 99) == 40
    text, starts, keys, slots, values = index.own_state()
    reread = PackedIndex.packed(PackedStrings.packed(text, starts), keys, slots, values)
    assert dict(reread) == {"roll": 40, "deploy": 41, "cach": 42} and list(reread.values()) == [40, 41, 42]


@given(st.lists(st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00")),
                unique=True, max_size=30),
       st.lists(st.text(max_size=5), max_size=10))
def test_a_packed_index_answers_as_the_dict_it_replaces(strings, probes):
    names, index = _packed(strings)
    expected = {name: at for at, name in enumerate(strings)}
    assert dict(index) == expected and list(names) == strings and list(index.items()) == list(expected.items())
    for probe in [*strings, *probes]:
        assert index.get(probe) == expected.get(probe) and (probe in index) == (probe in expected)


def test_arrays_mapped_at_odd_offsets_are_read_as_they_are():
    """A member of the snapshot's zip starts wherever its name ends: its int64 arrays may be unaligned."""
    strings = ["alpha", "beta", "déjà vu"]

    def unaligned(array: np.ndarray) -> np.ndarray:
        return np.frombuffer(b"\x00" + array.astype(np.int64).tobytes(), dtype=np.int64, offset=1)

    text, starts = pack(strings)
    keys, slots = key_index(strings, range(3))
    names = PackedStrings.packed(text, unaligned(starts))
    index = PackedIndex.packed(names, unaligned(keys), unaligned(slots))
    assert not index._slots.flags.aligned
    assert [index[name] for name in strings] == [0, 1, 2] and list(names) == strings and names[2] == "déjà vu"


def test_take_gives_the_same_names_one_by_one_or_all_decoded_at_once():
    names = PackedStrings.packed(*pack(UNUSUAL))
    names.append("added")
    few, many = [3, 0], [14, *range(len(UNUSUAL))][::-1]  # over an eighth of them: one decode of the buffer
    assert names.take(few) == [UNUSUAL[3], UNUSUAL[0]]
    assert names.take(many) == [[*UNUSUAL, "added"][at] for at in many]


def test_the_caches_of_names_read_and_looked_up_stay_bounded_and_right(monkeypatch):
    monkeypatch.setattr(packed_names, "_CACHED", 3)
    strings = [f"name {n}" for n in range(10)]
    names, index = _packed(strings)
    for _ in range(2):
        assert [names[at] for at in range(10)] == strings and [index.get(name) for name in strings] == list(range(10))
        assert index.get("missing") is None and "missing" not in index
    assert len(names._decoded) <= 3 and len(index._found) <= 3
    index["missing"] = 10  # a miss remembered is no miss once the name is added
    assert index["missing"] == 10 and len(index) == 11


def test_packing_in_place_keeps_every_name_and_lookup_and_what_is_added_after():
    names = PackedStrings(UNUSUAL[:5])
    names.pack()  # nothing packed yet: all from the list
    names.extend(UNUSUAL[5:])
    index = PackedIndex({name: at for at, name in enumerate(UNUSUAL)})
    forms = PackedIndex({name: 100 + at for at, name in enumerate(UNUSUAL)})  # values other than the slots
    terms = PackedIndex({name: at for at, name in enumerate(UNUSUAL)})
    names.pack()
    index.pack(names)
    forms.pack()
    terms.pack(dense=True)
    assert names.packed_count == len(UNUSUAL) and list(names) == UNUSUAL
    for packed, offset in ((index, 0), (forms, 100), (terms, 0)):
        assert not packed.added and dict(packed) == {name: offset + at for at, name in enumerate(UNUSUAL)}
        assert "déjà" not in packed and packed.get("\ud800") is None
    names.append("after")
    index["after"] = len(UNUSUAL)
    assert names[len(UNUSUAL)] == "after" and index["after"] == len(UNUSUAL) and len(index) == len(UNUSUAL) + 1


def test_a_string_that_cannot_be_packed_leaves_the_index_as_it_was():
    names = PackedStrings(["ok", "nul\x00inside"])
    with pytest.raises(ValueError):
        names.pack()
    assert list(names) == ["ok", "nul\x00inside"] and names.packed_count == 0
    forms = PackedIndex({"nul\x00inside": 1})
    with pytest.raises(ValueError):
        forms.pack()
    assert forms["nul\x00inside"] == 1 and dict(forms.added) == {"nul\x00inside": 1}
