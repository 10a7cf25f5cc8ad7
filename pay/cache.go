package pay

import "github.com/termsgate/termsgate/atr"

// The bounds of a Transport's own ATR cache: records are at most
// atr.MaxBytes each, and a payer rarely deals with more than a few hundred
// sets of terms at once.
const (
	DefaultATRCacheEntries = 256
	DefaultATRCacheBytes   = 16 << 20
)

// cache is the ATR cache the Transport's payments use, nil with NoATRCache.
func (t *Transport) cache() *atr.Cache {
	if t.NoATRCache {
		return nil
	}
	if t.ATRCache != nil {
		return t.ATRCache
	}
	t.ownCache.once.Do(func() { t.ownCache.cache = atr.NewCache(DefaultATRCacheEntries, DefaultATRCacheBytes) })
	return t.ownCache.cache
}

// cachingFetcher is f with the Transport's cache in place of its own (a
// copy: the Gate the caller configured is not changed).
func (t *Transport) cachingFetcher(f *atr.Fetcher) *atr.Fetcher {
	c := t.cache()
	var cf atr.Fetcher
	if f != nil {
		if f.Cache == c {
			return f
		}
		cf = *f
	} else if c == nil {
		return nil
	}
	cf.Cache = c
	return &cf
}
