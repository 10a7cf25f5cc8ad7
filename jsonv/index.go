package jsonv

import "hash/maphash"

// indexFrom is the member count from which an object keeps a name index:
// below it a scan of a few short strings is cheaper than hashing.
const indexFrom = 16

// nameIndex finds an object's member by name in constant expected time.
//
// It is an open-addressed table (linear probing, at most half full) of
// 64-bit slots: the name's 32-bit hash above, the member's position plus one
// below, 0 for empty. Keeping the hash in the slot means a probe touches a
// member's name only when the hashes match, and growing rehashes without
// reading any name, which keeps a hostile object of many members cheap in
// memory traffic as well as in steps. The hash is seeded per process, so a
// seller cannot choose names that collide.
type nameIndex struct {
	slots []uint64
}

var nameSeed = maphash.MakeSeed()

func hashName(key string) uint32 { return uint32(maphash.String(nameSeed, key)) }

// lookup returns the position of key (whose hash is h) in members, or -1.
func (x *nameIndex) lookup(members []Member, key string, h uint32) int {
	mask := uint32(len(x.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		s := x.slots[i]
		if s == 0 {
			return -1
		}
		if uint32(s>>32) == h {
			if p := int(uint32(s)) - 1; members[p].Key == key {
				return p
			}
		}
	}
}

// add records that the member at pos has a name hashing to h; count is the
// number of members indexed once it is added.
func (x *nameIndex) add(h uint32, pos, count int) {
	if 2*count > len(x.slots) {
		x.grow(2 * count)
	}
	x.put(uint64(h)<<32 | uint64(pos+1))
}

func (x *nameIndex) put(s uint64) {
	mask := uint32(len(x.slots) - 1)
	i := uint32(s>>32) & mask
	for x.slots[i] != 0 {
		i = (i + 1) & mask
	}
	x.slots[i] = s
}

// grow moves the slots into a table of at least min slots (a power of two).
func (x *nameIndex) grow(atLeast int) {
	n := 64
	for n < atLeast {
		n *= 2
	}
	old := x.slots
	x.slots = make([]uint64, n)
	for _, s := range old {
		if s != 0 {
			x.put(s)
		}
	}
}

// buildIndex indexes members from scratch (after they moved), or returns nil
// when there are too few to need it.
func buildIndex(members []Member) *nameIndex {
	if len(members) < indexFrom {
		return nil
	}
	x := &nameIndex{}
	x.grow(2 * len(members))
	for i, m := range members {
		x.put(uint64(hashName(m.Key))<<32 | uint64(i+1))
	}
	return x
}
