package card

// card/mastercard-vi/autonomous. Where H goes: the merchant's checkout JWT
// carries it as its payload's legalContext.value; the agent's L3b mandate,
// signed with the key the user's L2 delegates (its mandate.checkout.open.1
// cnf.jwk), references a mandate.checkout.1 whose checkout_hash is that
// JWT's base64url SHA-256. L3b's sd_hash names L2 and L2's names L1.

import (
	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/internal/memo"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/sdjwt"
)

const viAutonomousWhereH = "l3b: the checkout_jwt of the one mandate.checkout.1 the agent's L3b references carries H as legalContext.value; checkout_hash is that JWT's digest; L3b is signed by the key L2 delegates and names L2 by sd_hash, L2 names L1"

// VIAutonomous is card/mastercard-vi/autonomous: the agent signs L3b over
// the checkout mandate built here and answers {l1, l2, l3b}.
type VIAutonomous struct{}

var (
	_ rails.Pairing    = VIAutonomous{}
	_ rails.Summarizer = VIAutonomous{}
	_ rails.Inspector  = VIAutonomous{}
)

func (VIAutonomous) ID() string { return VIAutonomousID }

func (VIAutonomous) Pattern() rails.Pattern { return noProof("id-reuse") }

func (VIAutonomous) Read(doc jsonv.Value) (rails.Read, error) { return readCheckoutShown(doc) }

func (VIAutonomous) Choose(read rails.Read, account string, _ *jsonv.Object, _ int64, _ string) (jsonv.Value, error) {
	return chooseDoc(read, account)
}

func (VIAutonomous) Build(choice jsonv.Value, _ []byte, h atr.Hash) (rails.Unsigned, error) {
	return viBuild(choice, h)
}

func (VIAutonomous) Request(u rails.Unsigned) (rails.Request, error) { return viRequest(u) }

func (VIAutonomous) Complete(_ rails.Unsigned, answer jsonv.Value, _ rails.Chosen) (rails.Completion, error) {
	return viComplete(answer, "l1", "l2", "l3b")
}

// Chain is an Autonomous presentation as ReadAutonomous checked it.
type Chain struct {
	Mandate *Mandate
	User    string // L1's sub: the card holder the issuer names
	Agent   string // L3b's kid
}

// ReadAutonomous is Bound's check, in the reference's order: L3b as a
// kb-sd-jwt layer with a string kid and its checkout mandate; L3b's sd_hash
// the digest of l2; L2 as a kb-sd-jwt+kb layer whose one referenced open
// checkout mandate delegates an EC P-256 key with L3b's kid, under which
// L3b verifies (ES256); L2's sd_hash the digest of l1; L1 an SD-JWT whose
// cnf.jwk is EC P-256, under which L2 verifies. L1's issuer signature is not
// verified (the network does that).
func ReadAutonomous(presented jsonv.Value) (*Chain, error) {
	o, ok := jsonv.AsObject(presented)
	if !ok {
		return nil, refuse(CodeVIMalformed)
	}
	l3b, _ := o.Get("l3b")
	agent, err := readLayer(l3b, TypUser)
	if err != nil {
		return nil, err
	}
	kid, ok := agent.Issuer.Header.GetString("kid")
	if !ok {
		return nil, refuse(CodeVITyp)
	}
	m, err := checkoutMandate(agent)
	if err != nil {
		return nil, err
	}
	l2v, _ := o.Get("l2")
	l2, ok := jsonv.AsString(l2v)
	if !ok {
		return nil, refuse(CodeVIMalformed)
	}
	if len(l2) > MaxVILayer {
		return nil, refuse(CodeTooLarge)
	}
	l2Read, known := autonomousLayers.Get(layerKey("l2", l2))
	if !known {
		l2Read.digest = sdjwt.Digest(l2)
	}
	if sh, _ := agent.Issuer.Payload.GetString("sd_hash"); sh != l2Read.digest {
		return nil, refuse(CodeVISDHashMismatch)
	}
	if !known {
		if l2Read.p, err = readLayer(l2, TypUserDelegate); err != nil {
			return nil, err
		}
		autonomousLayers.Put(layerKey("l2", l2), l2Read)
	}
	user := l2Read.p
	var open []*jsonv.Object
	for _, x := range mandates(user) {
		if vct, _ := x.GetString("vct"); vct == OpenCheckoutVct {
			open = append(open, x)
		}
	}
	if len(open) != 1 {
		return nil, refuse(CodeVIKeyMalformed)
	}
	cnf, _ := open[0].Get("cnf")
	agentKey, ok := jwkOf(cnf)
	if !ok {
		return nil, refuse(CodeVIKeyMalformed)
	}
	akid, ok := agentKey.GetString("kid")
	if !ok {
		return nil, refuse(CodeVIKeyMalformed)
	}
	if akid != kid {
		return nil, refuse(CodeVIKidMismatch)
	}
	if err := verifyES256(agent.Issuer, agentKey); err != nil {
		return nil, err
	}
	l1v, _ := o.Get("l1")
	l1, ok := jsonv.AsString(l1v)
	if !ok {
		return nil, refuse(CodeVIMalformed)
	}
	if len(l1) > MaxVILayer {
		return nil, refuse(CodeTooLarge)
	}
	l1Read, known := autonomousLayers.Get(layerKey("l1", l1))
	if !known {
		l1Read.digest = sdjwt.Digest(l1)
	}
	if sh, _ := user.Issuer.Payload.GetString("sd_hash"); sh != l1Read.digest {
		return nil, refuse(CodeVISDHashMismatch)
	}
	if !known {
		if n := countTilde(l1); n-1 > MaxVIDisclosures {
			return nil, refuse(CodeTooLarge)
		}
		if l1Read.p, err = sdjwt.Parse(l1); err != nil {
			return nil, sdCode(err)
		}
		autonomousLayers.Put(layerKey("l1", l1), l1Read)
	}
	issued := l1Read.p
	ucnf, _ := issued.Claims.Get("cnf")
	userKey, ok := jwkOf(ucnf)
	if !ok {
		return nil, refuse(CodeVIKeyMalformed)
	}
	if err := verifyES256(user.Issuer, userKey); err != nil {
		return nil, err
	}
	sub, _ := issued.Claims.GetString("sub")
	return &Chain{Mandate: m, User: sub, Agent: kid}, nil
}

// autonomousLayers keeps the user's L2 and the issuer's L1 as read, by
// their exact text: an agent presents them unchanged with every payment and
// only its own L3b is new. An entry is made only for a layer that read
// whole (its digest, and its parse); what ReadAutonomous reads from it is
// only read, never changed, so sharing it across payments is safe. At its
// size the memo starts again empty.
var autonomousLayers = memo.New[layerName, readLayerText](layerMemoSize)

const layerMemoSize = 64

type readLayerText struct {
	p      *sdjwt.Presentation
	digest string
}

// layerName names a layer's text, as L1 or L2 (a key made without copying
// the text).
type layerName struct {
	which string
	text  string
}

func layerKey(which, text string) layerName { return layerName{which, text} }

func countTilde(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] == '~' {
			n++
		}
	}
	return n
}

func (VIAutonomous) Bound(presented jsonv.Value) (string, error) {
	c, err := ReadAutonomous(presented)
	if err != nil {
		return "", err
	}
	return c.Mandate.H, nil
}

func (VIAutonomous) Summarize(req rails.Request) (rails.Grant, error) { return viSummarize(req) }

// Inspect states the card holder L1 names as payer, the checkout's
// merchant as payee, and where H sits; the agent's L3b discloses no amount.
func (VIAutonomous) Inspect(payment jsonv.Value) (rails.Inspection, error) {
	c, err := ReadAutonomous(payment)
	if err != nil {
		return rails.Inspection{}, err
	}
	d := viDetails(c.Mandate)
	d.Set("agentKid", c.Agent)
	return rails.Inspection{Pairing: VIAutonomousID, Kind: "mandate", Grant: paymentGrant(c.Mandate, c.User), H: c.Mandate.H,
		WhereH: viAutonomousWhereH, Details: d}, nil
}
