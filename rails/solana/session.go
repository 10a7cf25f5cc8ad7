package solana

// mpp/session/solana: H sits in the channel's salt. The opening is a v0
// transaction whose one open instruction of the challenge's channel program
// carries salt = H's first 8 bytes read as a little-endian u64, so the
// instruction data holds exactly those 8 bytes (data[1:9]); the salt is also
// a seed of the channel's address. The payer signs that instruction and it
// runs on chain, so the opening is a public proof of H's prefix; the full H
// is in the challenge the opening answers (its id and opaque). Vouchers
// signed inside the channel carry no H of their own and are bound through
// the channel the opening created (docs/solana.md, "mpp/session/solana").

import (
	"crypto/ed25519"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"math/big"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/mpp"
)

// Session is the mpp/session/solana pairing.
type Session struct{}

// SessionID is the pairing id.
const SessionID = mpp.PairingSolanaSession

// KindSessionOpen is the opening's signing request: the values the open is
// composed from and the composed v0 message; the signer answers the open
// payload {action: "open", channelId, transaction}.
const KindSessionOpen = "solana-session-open"

// KindEd25519Raw is a request to sign raw bytes with the key it names,
// answered in base58: a voucher, or the operator mode's session proof.
const KindEd25519Raw = "ed25519-raw"

// Refusal codes of the session.
const (
	CodeOpenNotFound          = "svm/open-not-found"
	CodeChannelMismatch       = "svm/channel-mismatch"
	CodeProofNotChallenge     = "svm/proof-not-challenge"
	CodeCarrierNotChallenge   = "mpp/carrier-not-challenge"
	CodeNetworkUndeclared     = mpp.CodeSVMNetworkUndeclared
	CodeSessionNotBoundWithin = "mpp/not-bound-within"
	CodeWithinActionNotBuilt  = "mpp/within-action-not-built"
)

// The channel program's open instruction (the payment-channels program at
// https://github.com/solana-foundation/payment-channel): discriminator 1,
// then salt u64, deposit u64, grace period u32, open slot u64 and the
// distribution recipients as a u32 count and entries, all little-endian.
const (
	openDiscriminator = 1
	openMinData       = 33
	openMinAccounts   = 6
	openChannelAt     = 5
	openSignerAt      = 4
)

// The opening's defaults where the challenge and the buyer name none.
const (
	DefaultSessionDeposit     = 10_000_000 // atomic units; the spend policy sees the deposit in full
	DefaultGracePeriodSeconds = 900
	SessionComputeUnits       = 200_000
	SessionMicroLamports      = 1
)

var (
	_ rails.Pairing          = Session{}
	_ rails.Channel          = Session{}
	_ rails.WithinBuilder    = Session{}
	_ rails.ChannelNamer     = Session{}
	_ rails.Summarizer       = Session{}
	_ rails.WithinSummarizer = Session{}
	_ rails.Inspector        = Session{}

	rentSysvar = MustKey("SysvarRent111111111111111111111111111111111")
	u64Limit   = two64
)

func (Session) ID() string { return SessionID }

func (Session) Pattern() rails.Pattern { return rails.Pattern{Name: "native-field", PublicProof: true} }

func (Session) Read(doc jsonv.Value) (rails.Read, error) { return mpp.Read(doc) }

// SessionSalt is H's first 8 bytes read as a little-endian u64.
func SessionSalt(h atr.Hash) uint64 { return binary.LittleEndian.Uint64(h[:8]) }

// SessionProof is the operator mode's session proof: the UTF-8 of the
// RFC 8785 JSON of {channelId, domain: "mpp-session-auth-v1", payer,
// sessionChallengeId}.
func SessionProof(channel, payer, challengeID string) []byte {
	return jsonv.Canonical(jsonv.Obj("channelId", channel, "domain", "mpp-session-auth-v1", "payer", payer, "sessionChallengeId", challengeID))
}

var minI64, maxI64 = new(big.Int).Neg(new(big.Int).Lsh(big.NewInt(1), 63)), new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 63), big.NewInt(1))

// VoucherFor is VoucherMessage from a base58 channel id and big integers:
// a channel that is not a key, a cumulative amount outside a u64 or an
// expiry outside an i64 is svm/input-malformed.
func VoucherFor(channel string, cumulative, expiresAt *big.Int) ([]byte, error) {
	ch, ok := ParseKey(channel)
	if !ok || cumulative == nil || expiresAt == nil || cumulative.Sign() < 0 || cumulative.Cmp(u64Limit) >= 0 ||
		expiresAt.Cmp(minI64) < 0 || expiresAt.Cmp(maxI64) > 0 {
		return nil, rails.Refuse(CodeInputMalformed)
	}
	return VoucherMessage(ch, cumulative.Uint64(), expiresAt.Int64()), nil
}

// sessionChannel is the channel's address: the program-derived address of
// ["channel", payer, payee, mint, authorizedSigner, salt, openSlot] (salt
// and slot little-endian u64s) under the challenge's channel program (for
// the payment-channels program, ChannelAddress).
func sessionChannel(program, payer, payee, mint, authorizedSigner Key, salt, openSlot uint64) (Key, error) {
	k, _, err := FindProgramAddress([][]byte{[]byte("channel"), payer[:], payee[:], mint[:], authorizedSigner[:],
		binary.LittleEndian.AppendUint64(nil, salt), binary.LittleEndian.AppendUint64(nil, openSlot)}, program)
	return k, err
}

// eventAuthorityOf is a channel program's event authority: the
// program-derived address of ["event_authority"] (for the payment-channels
// program, EventAuthority).
func eventAuthorityOf(program Key) (Key, error) {
	k, _, err := FindProgramAddress([][]byte{[]byte("event_authority")}, program)
	return k, err
}

// Open is an open instruction read from a transaction. Accounts beyond the
// static keys (a lookup table's) read as the zero key.
type Open struct {
	Salt, Deposit, OpenSlot uint64
	GracePeriod             uint32
	Payer, RentPayer        Key
	Payee, Mint             Key
	AuthorizedSigner        Key
	Channel                 Key
}

// OpenOf is the one top-level instruction of program whose data starts
// with the open discriminator, with at least 33 bytes of data and 6
// accounts, its channel (account 5) a static key; anything else is
// svm/open-not-found.
func OpenOf(tx *Tx, program Key) (*Open, error) {
	var found *Instruction
	n := 0
	for i, ix := range tx.Instructions {
		if p, ok := tx.ProgramOf(ix); ok && p == program && len(ix.Data) >= openMinData && ix.Data[0] == openDiscriminator && len(ix.Accounts) >= openMinAccounts {
			found = &tx.Instructions[i]
			n++
		}
	}
	if n != 1 || int(found.Accounts[openChannelAt]) >= len(tx.Keys) {
		return nil, rails.Refuse(CodeOpenNotFound)
	}
	key := func(i int) Key {
		if at := int(found.Accounts[i]); at < len(tx.Keys) {
			return tx.Keys[at]
		}
		return Key{}
	}
	d := found.Data
	return &Open{
		Salt: binary.LittleEndian.Uint64(d[1:9]), Deposit: binary.LittleEndian.Uint64(d[9:17]),
		GracePeriod: binary.LittleEndian.Uint32(d[17:21]), OpenSlot: binary.LittleEndian.Uint64(d[21:29]),
		Payer: key(0), RentPayer: key(1), Payee: key(2), Mint: key(3), AuthorizedSigner: key(openSignerAt), Channel: key(openChannelAt),
	}, nil
}

// openParams are what an opening is composed from.
type openParams struct {
	program, payer, feePayer, payee, mint, authorizedSigner, tokenProgram, blockhash Key
	salt, deposit, openSlot                                                          uint64
	grace                                                                            uint32
}

// composeOpen compiles the opening's v0 message: the compute budget, then
// the open instruction with its fourteen accounts (payer, rent payer — the
// fee payer —, payee, mint, authorized signer, channel, the payer's and the
// channel's token accounts, the token, System, Rent sysvar and
// associated-token programs, the event authority, the program itself).
func composeOpen(p openParams) (msg []byte, channel Key, err error) {
	channel, err = sessionChannel(p.program, p.payer, p.payee, p.mint, p.authorizedSigner, p.salt, p.openSlot)
	if err != nil {
		return nil, Key{}, err
	}
	payerATA, err1 := AssociatedTokenAccount(p.payer, p.tokenProgram, p.mint)
	channelATA, err2 := AssociatedTokenAccount(channel, p.tokenProgram, p.mint)
	events, err3 := eventAuthorityOf(p.program)
	if err1 != nil || err2 != nil || err3 != nil {
		return nil, Key{}, errNoPDA
	}
	data := []byte{openDiscriminator}
	data = binary.LittleEndian.AppendUint64(data, p.salt)
	data = binary.LittleEndian.AppendUint64(data, p.deposit)
	data = binary.LittleEndian.AppendUint32(data, p.grace)
	data = binary.LittleEndian.AppendUint64(data, p.openSlot)
	data = binary.LittleEndian.AppendUint32(data, 0) // no distribution recipients
	open := Ix{Program: p.program, Data: data, Accounts: []AccountMeta{
		{Key: p.payer, Signer: true, Writable: true}, {Key: p.feePayer, Signer: true, Writable: true},
		{Key: p.payee}, {Key: p.mint}, {Key: p.authorizedSigner}, {Key: channel, Writable: true},
		{Key: payerATA, Writable: true}, {Key: channelATA, Writable: true}, {Key: p.tokenProgram},
		{Key: SystemProgram}, {Key: rentSysvar}, {Key: AssociatedTokenProg}, {Key: events}, {Key: p.program},
	}}
	return CompileV0(p.feePayer, p.blockhash, append(ComputeBudgetIxs(SessionComputeUnits, SessionMicroLamports), open)), channel, nil
}

// Choose takes the first challenge offering the pairing on the account's
// network (solana:<genesis>:<key>), and the optional inputs deposit (a
// decimal), tokenProgram (the mint's owner, when the challenge names none)
// and validUntil (Unix seconds: the buyer's estimate of when the
// challenge's blockhash expires, which no value in the message states; the
// spend policy judges it).
func (Session) Choose(read rails.Read, account string, inputs *jsonv.Object, now int64, _ string) (jsonv.Value, error) {
	acct, _, ok := accountKey(account)
	if !ok {
		return nil, rails.Refuse(mpp.CodeNoPayableOption)
	}
	var challenge *jsonv.Object
	for _, v := range read.Options {
		if !mpp.OffersPlaced(v, SessionID) {
			continue
		}
		if n, err := mpp.Network(v); err != nil || n != acct.Network() {
			continue
		}
		c, _ := jsonv.AsObject(v)
		challenge = c.Clone()
		break
	}
	if challenge == nil {
		return nil, rails.Refuse(mpp.CodeNoPayableOption)
	}
	picked, err := mpp.Inputs(inputs, mpp.Input{Name: "deposit", Kind: "decimal", Optional: true},
		mpp.Input{Name: "tokenProgram", Kind: "string", Optional: true})
	if err != nil {
		return nil, err
	}
	if v, has := inputs.Get("validUntil"); has {
		if n, ok := jsonv.AsSafeInt(v); !ok || n < 0 {
			return nil, rails.Refuse(mpp.CodeInputMissing)
		}
		picked.Set("validUntil", jsonv.Clone(v))
	}
	return mpp.Choice(challenge, acct.Address, now, picked), nil
}

// chosenFor is the build's first step: the choice's challenge
// (svm/input-malformed when the choice is no object, mpp/input-malformed
// when the challenge is not), checked as placed, offering the pairing
// (mpp/not-this-pairing), its id naming h (mpp/id-not-ours).
func chosenFor(choice jsonv.Value, h atr.Hash) (*jsonv.Object, *mpp.Checked, error) {
	c, ok := jsonv.AsObject(choice)
	if !ok {
		return nil, nil, rails.Refuse(CodeInputMalformed)
	}
	challenge, ok := c.GetObject("challenge")
	if !ok {
		return nil, nil, rails.Refuse(mpp.CodeInputMalformed)
	}
	if _, ok := challenge.GetString("id"); !ok {
		return nil, nil, rails.Refuse(mpp.CodeInputMalformed)
	}
	checked, err := mpp.CheckChosen(challenge, SessionID, h)
	if err != nil {
		return nil, nil, err
	}
	return c, checked, nil
}

type sessionUnsigned struct {
	until     int64
	challenge *jsonv.Object
	network   string
	params    openParams
	message   []byte
	channel   Key // the built open's; a channel client's own composition may differ (openPayload)
	operator  bool
}

// keyAt parses o[k] as a key.
func keyAt(o *jsonv.Object, k string) (Key, bool) {
	s, _ := o.GetString(k)
	return ParseKey(s)
}

// u64Text reads a decimal below 2^64 (leading zeros allowed).
func u64Text(s string) (uint64, bool) {
	if !rails.IsDecimal(s) {
		return 0, false
	}
	n, _ := new(big.Int).SetString(s, 10)
	if n.Cmp(u64Limit) >= 0 {
		return 0, false
	}
	return n.Uint64(), true
}

// Build composes the opening from the challenge and the choice: salt
// SessionSalt(h), the challenge's program, recipient, currency (the mint),
// recent blockhash and slot (the open slot), grace period (900 s when it
// names none), fee payer (the payer's own key unless feePayer is true) and
// voucher signer (the payer, or the operator); the deposit is the buyer's,
// else the request's suggestedDeposit, else DefaultSessionDeposit; the
// token program the challenge's, else the buyer's, else Token.
func (Session) Build(choice jsonv.Value, _ []byte, h atr.Hash) (rails.Unsigned, error) {
	c, checked, err := chosenFor(choice, h)
	if err != nil {
		return nil, err
	}
	network, err := mpp.Network(checked.Challenge)
	if err != nil {
		return nil, err
	}
	r, d := checked.Request, checked.Details
	bad := rails.Refuse(CodeInputMalformed)
	malformed := rails.Refuse(mpp.CodeInputMalformed)
	var p openParams
	var ok bool
	from, _ := c.GetString("from")
	if p.payer, ok = ParseKey(from); !ok {
		return nil, malformed
	}
	depositText, has := c.GetString("deposit")
	if !has {
		depositText = strconv.Itoa(DefaultSessionDeposit)
		if s, ok := r.GetString("suggestedDeposit"); ok {
			depositText = s
		}
	}
	if p.deposit, ok = u64Text(depositText); !ok || p.deposit == 0 {
		return nil, malformed
	}
	p.program, _ = keyAt(d, "channelProgram")
	p.payee, _ = keyAt(r, "recipient")
	p.mint, _ = keyAt(r, "currency")
	p.blockhash, _ = keyAt(d, "recentBlockhash")
	slotText, _ := d.GetString("recentSlot")
	if p.openSlot, ok = u64Text(slotText); !ok {
		return nil, bad
	}
	p.feePayer = p.payer
	if fp, _ := d.Get("feePayer"); fp == true {
		if p.feePayer, ok = keyAt(d, "feePayerKey"); !ok {
			return nil, bad
		}
	}
	operator := mpp.String(d, "voucherSigner") == "operator"
	p.authorizedSigner = p.payer
	if operator {
		p.authorizedSigner, _ = keyAt(d, "operator")
	}
	p.grace = DefaultGracePeriodSeconds
	if g, has := d.Get("gracePeriodSeconds"); has {
		n, ok := jsonv.AsSafeInt(g)
		if !ok || n > 0xffffffff {
			return nil, bad
		}
		p.grace = uint32(n)
	}
	if splits, has := d.Get("distributionSplits"); has {
		if list, ok := jsonv.AsArray(splits); !ok || len(list) > 0 {
			return nil, bad // distribution splits are not built
		}
	}
	p.tokenProgram = TokenProgram
	tp, has := d.GetString("tokenProgram")
	if !has {
		tp, has = c.GetString("tokenProgram")
	}
	if has {
		if p.tokenProgram, ok = ParseKey(tp); !ok || p.tokenProgram != TokenProgram && p.tokenProgram != Token2022Program {
			return nil, bad
		}
	}
	var until int64
	if v, has := c.Get("validUntil"); has {
		if until, ok = jsonv.AsSafeInt(v); !ok || until < 0 {
			return nil, malformed
		}
	}
	p.salt = SessionSalt(h)
	msg, channel, err := composeOpen(p)
	if err != nil {
		return nil, bad
	}
	return &sessionUnsigned{until: until, challenge: checked.Challenge, network: network, params: p, message: msg, channel: channel, operator: operator}, nil
}

// Request is {kind: "solana-session-open", network, salt, channelProgram,
// recentBlockhash, recentSlot, payer, payee, mint, deposit, channel,
// message, validUntil?}: the values the open is composed from (u64s as
// decimal strings), the composed message, 0x hex, which is what the payer
// signs, and the buyer's estimate of when its blockhash expires.
func (Session) Request(un rails.Unsigned) (rails.Request, error) {
	u := un.(*sessionUnsigned)
	p := u.params
	r := jsonv.Obj("kind", KindSessionOpen, "network", u.network, "salt", strconv.FormatUint(p.salt, 10),
		"channelProgram", p.program.String(), "recentBlockhash", p.blockhash.String(), "recentSlot", strconv.FormatUint(p.openSlot, 10),
		"payer", p.payer.String(), "payee", p.payee.String(), "mint", p.mint.String(), "deposit", strconv.FormatUint(p.deposit, 10),
		"channel", u.channel.String(), "message", "0x"+hex.EncodeToString(u.message))
	if u.until > 0 {
		r.Set("validUntil", jsonv.Number(u.until))
	}
	return r, nil
}

// openPayload checks the channel client's open payload against the
// build: action open (mpp/session-action); a transaction (svm/tx-malformed,
// svm/tx-too-large) with the built fee payer and blockhash and no lookup
// table, holding only the built compute budget and one open of the
// channel program that opens with the built payer, rent payer, payee,
// mint, salt, deposit, open slot and grace period, signed by the payer
// (mpp/credential-malformed); the open's channel the payload's
// (svm/channel-mismatch). The voucher signer is not compared: it is the
// seller's operator or the payer's own choice, and a voucher is only ever
// signed for the one the held opening names. It returns the payload
// rebuilt from those three members only.
func (u *sessionUnsigned) openPayload(v jsonv.Value) (*jsonv.Object, *Open, error) {
	o, ok := jsonv.AsObject(v)
	if !ok {
		return nil, nil, rails.Refuse(mpp.CodeCredentialMalformed)
	}
	if mpp.String(o, "action") != "open" {
		return nil, nil, rails.Refuse(mpp.CodeSessionAction)
	}
	text, _ := o.Get("transaction")
	tx, err := WireOf(text)
	if err != nil {
		return nil, nil, err
	}
	p := u.params
	malformed := rails.Refuse(mpp.CodeCredentialMalformed)
	if tx.LookupTables != 0 || tx.Keys[0] != p.feePayer || tx.Blockhash != p.blockhash {
		return nil, nil, malformed
	}
	budget := ComputeBudgetIxs(SessionComputeUnits, SessionMicroLamports)
	for _, ix := range tx.Instructions {
		prog, _ := tx.ProgramOf(ix)
		if prog == ComputeBudget && len(ix.Accounts) == 0 && (string(ix.Data) == string(budget[0].Data) || string(ix.Data) == string(budget[1].Data)) {
			continue
		}
		if prog != p.program {
			return nil, nil, malformed
		}
	}
	open, err := OpenOf(tx, p.program)
	if err != nil {
		return nil, nil, err
	}
	if open.Payer != p.payer || open.RentPayer != p.feePayer || open.Payee != p.payee || open.Mint != p.mint || open.Salt != p.salt ||
		open.Deposit != p.deposit || open.OpenSlot != p.openSlot || open.GracePeriod != p.grace || !signedBy(tx, p.payer) {
		return nil, nil, malformed
	}
	if ch, ok := keyAt(o, "channelId"); !ok || ch != open.Channel {
		return nil, nil, rails.Refuse(CodeChannelMismatch)
	}
	return jsonv.Obj("action", "open", "channelId", open.Channel.String(), "transaction", text), open, nil
}

// signedBy reports whether key's signature slot holds its valid signature
// over the message.
func signedBy(tx *Tx, key Key) bool {
	for i := 0; i < tx.Required && i < len(tx.Signatures); i++ {
		if tx.Keys[i] == key {
			return ed25519.Verify(key[:], tx.Message, tx.Signatures[i])
		}
	}
	return false
}

// signs reports whether key is one of m's required signers.
func signs(m *Tx, key Key) bool {
	for i := 0; i < m.Required && i < len(m.Keys); i++ {
		if m.Keys[i] == key {
			return true
		}
	}
	return false
}

// base58Signature reads a 64-byte signature as 64 to 88 base58 characters.
func base58Signature(v jsonv.Value) ([]byte, bool) {
	s, ok := v.(string)
	if !ok || len(s) < 64 || len(s) > 88 {
		return nil, false
	}
	b, ok := DecodeBase58(s)
	return b, ok && len(b) == 64
}

// Complete joins the open payload to the challenge. In operator mode the
// open payload asks next for the payer's signature over the session proof
// of the open's channel (ed25519-raw), and [open, proof signature]
// completes the credential with authentication {type: "proof",
// challengeId, payer, signature}. The credential is then read back as a
// seller would.
func (p Session) Complete(un rails.Unsigned, answer jsonv.Value, _ rails.Chosen) (rails.Completion, error) {
	u := un.(*sessionUnsigned)
	malformed := rails.Refuse(mpp.CodeCredentialMalformed)
	id, _ := u.challenge.GetString("id")
	payer := u.params.payer.String()
	first := answer
	var proof jsonv.Value
	if u.operator {
		list, isList := jsonv.AsArray(answer)
		if !isList {
			_, open, err := u.openPayload(answer)
			if err != nil {
				return rails.Completion{}, err
			}
			msg := SessionProof(open.Channel.String(), payer, id)
			return rails.Completion{Next: jsonv.Obj("kind", KindEd25519Raw, "message", "0x"+hex.EncodeToString(msg), "signer", payer)}, nil
		}
		if len(list) != 2 {
			return rails.Completion{}, malformed
		}
		first, proof = list[0], list[1]
	}
	payload, open, err := u.openPayload(first)
	if err != nil {
		return rails.Completion{}, err
	}
	if u.operator {
		sig, ok := base58Signature(proof)
		if !ok || !ed25519.Verify(u.params.payer[:], SessionProof(open.Channel.String(), payer, id), sig) {
			return rails.Completion{}, malformed
		}
		payload.Set("authentication", jsonv.Obj("type", "proof", "challengeId", id, "payer", payer, "signature", proof))
	}
	cred := jsonv.Obj("challenge", u.challenge.Clone(), "payload", payload)
	if _, err := p.Bound(cred); err != nil {
		return rails.Completion{}, err
	}
	return rails.Completion{Signed: cred}, nil
}

// opening is a checked opening: H, its echoed challenge, its payload, its
// transaction and its open instruction.
type opening struct {
	e    *mpp.Bound
	tx   *Tx
	open *Open
}

// opening reads a presented opening credential, in the reference's order
// of checks: the echoed challenge, action open (mpp/session-action), the
// transaction (svm/tx-malformed, svm/tx-too-large), a durable nonce's
// accounts static (svm/nonce-account-not-static), the one open of the
// challenge's program (svm/open-not-found), its salt H's first 8 bytes
// (mpp/carrier-not-challenge), its channel the payload's
// (svm/channel-mismatch), and an authentication naming the challenge
// (svm/proof-not-challenge).
//
// A channel's every voucher re-reads the same held opening (the gate's hold
// check, its channel check and the build each ask), so the last opening
// read is remembered: readOpening is a function of the credential alone,
// and the memo answers only a credential jsonv.Equal to its own copy of
// the one it read, member order included. It holds one entry, and what it
// returns is only read, never changed (jsonv objects are safe to read from
// several goroutines).
func (Session) opening(presented jsonv.Value) (*opening, error) {
	if m := lastOpening.Load(); m != nil && jsonv.Equal(m.presented, presented) {
		return m.read, nil
	}
	own := jsonv.Clone(presented) // the memo's own copy: a caller may change presented later
	o, err := readOpening(own)
	if err != nil {
		return nil, err
	}
	lastOpening.Store(&openingMemo{presented: own, read: o})
	return o, nil
}

// openingMemo is an opening credential as read (a copy no caller holds)
// and what readOpening found in it.
type openingMemo struct {
	presented jsonv.Value
	read      *opening
}

var lastOpening atomic.Pointer[openingMemo]

// readOpening is opening without the memo.
func readOpening(presented jsonv.Value) (*opening, error) {
	e, err := mpp.Echoed(presented, SessionID)
	if err != nil {
		return nil, err
	}
	if mpp.String(e.Payload, "action") != "open" {
		return nil, rails.Refuse(mpp.CodeSessionAction)
	}
	wire, _ := e.Payload.Get("transaction")
	tx, err := WireOf(wire)
	if err != nil {
		return nil, err
	}
	if isAdvance, fromTable, _, _ := advanceNonce(tx); isAdvance && fromTable {
		return nil, rails.Refuse(CodeNonceNotStatic)
	}
	program, ok := keyAt(e.Checked.Details, "channelProgram")
	if !ok {
		return nil, rails.Refuse(CodeOpenNotFound)
	}
	open, err := OpenOf(tx, program)
	if err != nil {
		return nil, err
	}
	if open.Salt != SessionSalt(e.H) {
		return nil, rails.Refuse(CodeCarrierNotChallenge)
	}
	if ch, ok := keyAt(e.Payload, "channelId"); !ok || ch != open.Channel {
		return nil, rails.Refuse(CodeChannelMismatch)
	}
	if auth, has := e.Payload.Get("authentication"); has {
		a, ok := jsonv.AsObject(auth)
		id, _ := e.Challenge.GetString("id")
		if got, isStr := a.GetString("challengeId"); !ok || !isStr || got != id {
			return nil, rails.Refuse(CodeProofNotChallenge)
		}
	}
	return &opening{e: e, tx: tx, open: open}, nil
}

// Bound reads H back from an opening: the echoed challenge's, once the
// signed open's salt is its first 8 bytes and its channel the payload's.
// No signature is verified: the chain verifies every signer's over the
// message it runs.
func (p Session) Bound(presented jsonv.Value) (string, error) {
	o, err := p.opening(presented)
	if err != nil {
		return "", err
	}
	return o.e.H.String(), nil
}

// Reference is what a seller records to find the opening on chain later:
// {network, transaction (the fee payer's signature, once signed), digest
// (SHA-256 of the message), feePayer, blockhash, channel}.
func (p Session) Reference(presented jsonv.Value) (*jsonv.Object, error) {
	o, err := p.opening(presented)
	if err != nil {
		return nil, err
	}
	network, err := mpp.Network(o.e.Challenge)
	if err != nil {
		return nil, err
	}
	ref := ReferenceOf(network, o.tx)
	ref.Set("channel", o.open.Channel.String())
	return ref, nil
}

// ChannelKind: open; within for a voucher, a top-up or a use; close.
func (Session) ChannelKind(signed jsonv.Value) (rails.ChannelKind, error) {
	p, err := mpp.SessionPayload(signed)
	if err != nil {
		return "", err
	}
	if mpp.String(p, "action") == "use" {
		return rails.ChannelWithin, nil
	}
	return mpp.SessionChannelKind(signed)
}

// ChannelRef is the network the payment's challenge names and the
// payload's channelId re-encoded from its 32 bytes; an opening is read
// back whole first.
func (p Session) ChannelRef(signed jsonv.Value) (rails.ChannelRef, error) {
	kind, err := p.ChannelKind(signed)
	if err != nil {
		return rails.ChannelRef{}, err
	}
	var network string
	if kind == rails.ChannelOpen {
		o, err := p.opening(signed)
		if err != nil {
			return rails.ChannelRef{}, err
		}
		network, err = mpp.SolanaSessionNetwork(o.e.Checked.Details)
		if err != nil {
			return rails.ChannelRef{}, err
		}
	} else {
		cred, _ := jsonv.AsObject(signed)
		challenge, _ := cred.Get("challenge")
		r := readChallenge(challenge)
		if network, err = r.network, r.networkErr; err != nil {
			return rails.ChannelRef{}, err
		}
	}
	payload, _ := mpp.SessionPayload(signed)
	ch, ok := keyAt(payload, "channelId")
	if !ok {
		return rails.ChannelRef{}, rails.Refuse(mpp.CodeCredentialMalformed)
	}
	return rails.ChannelRef{Network: network, Channel: ch.String()}, nil
}

// BoundWithin: a use credential echoing the opening challenge, whose
// session proof names that challenge's id, gives its H; a voucher, top-up
// or close signs no value holding H (mpp/not-bound-within).
func (p Session) BoundWithin(signed jsonv.Value) (string, error) {
	if _, err := p.ChannelKind(signed); err != nil {
		return "", err
	}
	payload, _ := mpp.SessionPayload(signed)
	if mpp.String(payload, "action") != "use" {
		return "", rails.Refuse(CodeSessionNotBoundWithin)
	}
	e, err := mpp.Echoed(signed, SessionID)
	if err != nil {
		return "", err
	}
	a, ok := e.Payload.GetObject("authentication")
	id, _ := e.Challenge.GetString("id")
	if got, isStr := a.GetString("challengeId"); !ok || !isStr || got != id {
		return "", rails.Refuse(CodeProofNotChallenge)
	}
	return e.H.String(), nil
}

// NamedChannel is the channel a session challenge names to resume
// (methodDetails.channelId, a key), named false when it names none.
func (Session) NamedChannel(challenge jsonv.Value) (rails.ChannelRef, bool, error) {
	r := readChallenge(challenge)
	return r.ref, r.named, r.namedErr
}

// challengeRead is what a within challenge says: the channel it names
// (NamedChannel) and its network (mpp.Network), each with its error.
type challengeRead struct {
	challenge  jsonv.Value // the memo's own copy
	ref        rails.ChannelRef
	named      bool
	namedErr   error
	network    string
	networkErr error
}

var lastChallenge atomic.Pointer[challengeRead]

// readChallenge reads a challenge for NamedChannel and for a voucher's
// ChannelRef. Within reads the same challenge twice per voucher (choosing
// it, then checking the signed voucher's channel) and every voucher of a
// channel usually answers the same one, so the last read is remembered,
// answering only a challenge jsonv.Equal to its own copy (one entry; both
// readings are functions of the challenge alone).
func readChallenge(challenge jsonv.Value) *challengeRead {
	if m := lastChallenge.Load(); m != nil && jsonv.Equal(m.challenge, challenge) {
		return m
	}
	own := jsonv.Clone(challenge)
	r := &challengeRead{challenge: own}
	r.ref, r.named, r.namedErr = namedChannel(own)
	r.network, r.networkErr = mpp.Network(own)
	lastChallenge.Store(r)
	return r
}

func namedChannel(challenge jsonv.Value) (rails.ChannelRef, bool, error) {
	c, ok := mpp.IsChallengeShape(challenge)
	if !ok {
		return rails.ChannelRef{}, false, rails.Refuse(mpp.CodeChallengeMalformed)
	}
	if mpp.String(c, "intent") != "session" || mpp.String(c, "method") != "solana" {
		return rails.ChannelRef{}, false, rails.Refuse(mpp.CodeNotThisPairing)
	}
	req, ok := mpp.DecodeObject(mpp.String(c, "request"))
	if !ok {
		return rails.ChannelRef{}, false, rails.Refuse(mpp.CodeRequestMalformed)
	}
	d, _ := req.GetObject("methodDetails")
	if !d.Has("channelId") {
		return rails.ChannelRef{}, false, nil
	}
	ch, ok := keyAt(d, "channelId")
	if !ok {
		return rails.ChannelRef{}, false, rails.Refuse(mpp.CodeRequestMalformed)
	}
	network, err := mpp.Network(c)
	if err != nil {
		return rails.ChannelRef{}, false, err
	}
	return rails.ChannelRef{Network: network, Channel: ch.String()}, true, nil
}

type voucherUnsigned struct {
	challenge  *jsonv.Object
	action     rails.WithinAction
	channel    Key
	signer     Key
	cumulative uint64
	message    []byte
}

func (u *voucherUnsigned) Requests() []rails.Request {
	return []rails.Request{jsonv.Obj("kind", KindEd25519Raw, "message", "0x"+hex.EncodeToString(u.message), "signer", u.signer.String())}
}

// Complete takes the voucher's base58 signature, which must verify under
// the channel's voucher signer, and returns {challenge, payload: {action,
// channelId, voucher: {voucher: {channelId, cumulativeAmount}, signer,
// signature, signatureType: "ed25519"}}}.
func (u *voucherUnsigned) Complete(answers []string) (jsonv.Value, error) {
	if len(answers) != 1 {
		return nil, rails.Refuse(mpp.CodeCredentialMalformed)
	}
	sig, ok := base58Signature(answers[0])
	if !ok || !ed25519.Verify(u.signer[:], u.message, sig) {
		return nil, rails.Refuse(mpp.CodeCredentialMalformed)
	}
	ch := u.channel.String()
	voucher := jsonv.Obj("voucher", jsonv.Obj("channelId", ch, "cumulativeAmount", strconv.FormatUint(u.cumulative, 10)),
		"signer", u.signer.String(), "signature", answers[0], "signatureType", "ed25519")
	return jsonv.Obj("challenge", u.challenge.Clone(), "payload", jsonv.Obj("action", string(u.action), "channelId", ch, "voucher", voucher)), nil
}

// BuildWithin builds a voucher (or a close's voucher) for the cumulative
// amount on the held opening's channel, for the voucher signer the
// opening's open instruction named: the within challenge's shape and id
// (mpp/input-malformed), intent and method (mpp/not-this-pairing), the held
// opening read back and carrying h (its codes; mpp/id-not-ours), the
// cumulative amount a u64 (mpp/input-malformed), the action. An operator
// channel's vouchers are the operator's, and top-ups and uses are not
// built (mpp/within-action-not-built).
func (p Session) BuildWithin(w rails.Within, h atr.Hash) (rails.InChannel, error) {
	c, err := mpp.WithinChallenge(w.Challenge, "solana")
	if err != nil {
		return nil, err
	}
	if w.Opening == nil {
		return nil, rails.Refuse(mpp.CodeCredentialMalformed)
	}
	o, err := p.opening(w.Opening)
	if err != nil {
		return nil, err
	}
	if !o.e.H.Equal(h) {
		return nil, rails.Refuse(mpp.CodeIDNotOurs)
	}
	if w.Cumulative == nil || w.Cumulative.Sign() < 0 || w.Cumulative.Cmp(u64Limit) >= 0 {
		return nil, rails.Refuse(mpp.CodeInputMalformed)
	}
	switch w.Action {
	case rails.WithinVoucher, rails.WithinClose:
	case "topUp", "use", "bearer":
		return nil, rails.Refuse(CodeWithinActionNotBuilt)
	default:
		return nil, rails.Refuse(mpp.CodeSessionAction)
	}
	if mpp.String(o.e.Checked.Details, "voucherSigner") == "operator" {
		return nil, rails.Refuse(CodeWithinActionNotBuilt)
	}
	if o.open.AuthorizedSigner == (Key{}) {
		return nil, rails.Refuse(CodeOpenNotFound)
	}
	cumulative := w.Cumulative.Uint64()
	return &voucherUnsigned{challenge: c, action: w.Action, channel: o.open.Channel, signer: o.open.AuthorizedSigner,
		cumulative: cumulative, message: VoucherMessage(o.open.Channel, cumulative, 0)}, nil
}

// TransactionBase64 is a wire transaction as a payload carries it.
func TransactionBase64(wire []byte) string { return base64.StdEncoding.EncodeToString(wire) }

// openMessage reads a solana-session-open request's message: it must
// decode with no lookup tables, hold only compute-budget instructions
// beside exactly one open of the request's channel program (nothing else
// can move the payer's funds), and its open's accounts must be static.
func openMessage(req rails.Request) (string, *Tx, *Open, error) {
	if k, _ := req.GetString("kind"); k != KindSessionOpen {
		return "", nil, nil, errUnreadable
	}
	network, _ := req.GetString("network")
	raw, ok := mpp.HexBytes(mpp.String(req, "message"), 1, MaxWire)
	program, okP := keyAt(req, "channelProgram")
	if !IsNetwork(network) || !ok || !okP {
		return "", nil, nil, errUnreadable
	}
	m, ok := DecodeMessage(raw)
	if !ok || m.LookupTables != 0 {
		return "", nil, nil, errUnreadable
	}
	for _, ix := range m.Instructions {
		if p, _ := m.ProgramOf(ix); p != ComputeBudget && p != program {
			return "", nil, nil, errUnreadable
		}
		for _, a := range ix.Accounts {
			if int(a) >= len(m.Keys) {
				return "", nil, nil, errUnreadable
			}
		}
	}
	open, err := OpenOf(m, program)
	if err != nil || !signs(m, open.Payer) {
		return "", nil, nil, errUnreadable
	}
	return network, m, open, nil
}

// Summarize: an opening grants its whole deposit (the channel holds it and
// the payee may claim up to what is signed), read from the message's open
// instruction; a blockhash, not a clock, bounds how long it is payable,
// which the request's validUntil, when given, estimates. A
// voucher alone (a batch of one ed25519-raw over voucher bytes) grants its
// cumulative amount in the channel it names; what it adds is that less the
// largest amount signed before, which only the hold knows.
func (Session) Summarize(req rails.Request) (rails.Grant, error) {
	if k, _ := req.GetString("kind"); k == rails.KindBatch {
		rv, _ := req.Get("requests")
		list, _ := jsonv.AsArray(rv)
		if len(list) != 1 {
			return rails.Grant{}, errUnreadable
		}
		o, _ := jsonv.AsObject(list[0])
		b, ok := mpp.HexBytes(mpp.String(o, "message"), VoucherLen, VoucherLen)
		if k, _ := o.GetString("kind"); k != KindEd25519Raw || !ok {
			return rails.Grant{}, errUnreadable
		}
		channel, cumulative, _, ok := ParseVoucher(b)
		if !ok {
			return rails.Grant{}, errUnreadable
		}
		return rails.Grant{Decimals: -1, Amount: new(big.Int).SetUint64(cumulative), Payee: "channel:" + channel.String()}, nil
	}
	network, _, open, err := openMessage(req)
	if err != nil {
		return rails.Grant{}, err
	}
	g := rails.Grant{Network: network, Asset: open.Mint.String(), Decimals: rails.KnownDecimals(network, open.Mint.String()),
		Amount: new(big.Int).SetUint64(open.Deposit), Payer: open.Payer.String(), Payee: open.Payee.String()}
	if v, has := req.Get("validUntil"); has {
		n, ok := jsonv.AsSafeInt(v)
		if !ok || n <= 0 {
			return rails.Grant{}, errUnreadable
		}
		g.PayableUntil = time.Unix(n, 0).UTC()
	}
	return g, nil
}

// SummarizeWithin states a voucher inside the channel opening opened: the
// cumulative amount the payee may claim, on the opening's network, of its
// mint, from its payer to its payee. A voucher for another channel is
// unreadable.
func (p Session) SummarizeWithin(req rails.Request, opening *jsonv.Object) (rails.Grant, error) {
	g, err := p.Summarize(req)
	if err != nil || g.Network != "" {
		return rails.Grant{}, errUnreadable
	}
	o, err := p.opening(opening)
	if err != nil {
		return rails.Grant{}, err
	}
	network, err := mpp.Network(o.e.Challenge)
	if err != nil || g.Payee != "channel:"+o.open.Channel.String() {
		return rails.Grant{}, errUnreadable
	}
	g.Network, g.Asset, g.Payer, g.Payee = network, o.open.Mint.String(), o.open.Payer.String(), o.open.Payee.String()
	g.Decimals = rails.KnownDecimals(network, g.Asset)
	return g, nil
}

// Inspect reads an opening as Bound does: its open instruction's payer,
// payee, mint and deposit are the grant, and the voucher signer, open slot,
// grace period, fee payer and blockhash its details; a voucher or close
// shows its channel, cumulative amount and signer, on the network the
// echoed challenge names.
func (p Session) Inspect(payment jsonv.Value) (rails.Inspection, error) {
	kind, err := p.ChannelKind(payment)
	if err != nil {
		return rails.Inspection{}, err
	}
	ref, err := p.ChannelRef(payment)
	if err != nil {
		return rails.Inspection{}, err
	}
	payload, _ := mpp.SessionPayload(payment)
	if kind != rails.ChannelOpen {
		in := rails.Inspection{Pairing: SessionID, Kind: "channel-" + string(kind),
			Grant:   rails.Grant{Network: ref.Network, Decimals: -1, Payee: "channel:" + ref.Channel},
			WhereH:  "none: a voucher names the channel, whose opening's salt carried H",
			Details: jsonv.Obj("action", mpp.String(payload, "action"), "channel", ref.Channel)}
		if v, ok := payload.GetObject("voucher"); ok {
			data, _ := v.GetObject("voucher")
			if s := mpp.String(data, "cumulativeAmount"); rails.IsDecimal(s) {
				in.Grant.Amount, _ = new(big.Int).SetString(s, 10)
			}
			in.Details.Set("signer", mpp.String(v, "signer"))
		}
		return in, nil
	}
	o, err := p.opening(payment)
	if err != nil {
		return rails.Inspection{}, err
	}
	mint := o.open.Mint.String()
	details := jsonv.Obj("channel", ref.Channel, "salt", strconv.FormatUint(o.open.Salt, 10),
		"voucherSigner", o.open.AuthorizedSigner.String(),
		"openSlot", strconv.FormatUint(o.open.OpenSlot, 10), "gracePeriodSeconds", int64(o.open.GracePeriod))
	for _, m := range reference(ref.Network, o.tx).Members() {
		details.Set(m.Key, m.Value)
	}
	if a, ok := o.e.Payload.GetObject("authentication"); ok {
		details.Set("authentication", a.Clone())
	}
	return rails.Inspection{Pairing: SessionID, Kind: "channel-open", H: o.e.H.String(),
		Grant: rails.Grant{Network: ref.Network, Asset: mint, Decimals: rails.KnownDecimals(ref.Network, mint),
			Amount: new(big.Int).SetUint64(o.open.Deposit), Payer: o.open.Payer.String(), Payee: o.open.Payee.String()},
		WhereH:  "the open instruction's salt, data bytes 1-8: H's first 8 bytes (the challenge's id and opaque carry all of H)",
		Details: details}, nil
}
