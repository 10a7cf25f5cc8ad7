package xrpl

import (
	"strings"
	"testing"
)

// unlModifyBlob is a UNLModify pseudo-transaction as the XRPL codec
// serializes it: its Account is present and empty (the codec keeps a
// UNLModify's so). inspect once converted that empty field to an account id
// and panicked.
const unlModifyBlob = "120066" + "2200000000" + "2400000000" + "2600869554" + "684000000000000000" + "7300" +
	"701321ED6629D456285AE3613B285F65BBFF168D695BA3921F309949AFCD2CA7AFEC16FE" + "8100" + "00101101"

func TestInspectBlobEmptyAccount(t *testing.T) {
	if _, err := Decode(mustHex(t, unlModifyBlob)); err != nil {
		t.Fatalf("the codec refuses the blob, so it tests nothing: %v", err)
	}
	in, err := InspectBlob(unlModifyBlob)
	if err != nil {
		t.Fatal(err)
	}
	if in.Grant.Payer != "" || in.Grant.Payee != "" || in.Details == nil {
		t.Fatalf("payer %q payee %q", in.Grant.Payer, in.Grant.Payee)
	}
	if s, _ := in.Details.GetString("payer"); !strings.Contains(s, "the Account is empty") {
		t.Fatalf("details.payer %q", s)
	}
	if s, _ := in.Details.GetString("transactionType"); s != "UNLModify" {
		t.Fatalf("transactionType %q", s)
	}
}
