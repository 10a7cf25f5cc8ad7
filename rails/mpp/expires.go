package mpp

// UnixOf reads an RFC 3339 date-time as LCP accepts it and returns Unix
// seconds, the fraction dropped:
//
//	YYYY-MM-DD ("T"|"t") HH:MM:SS [ "." 1–9 digits ] ( "Z" | "z" | ("+"|"-") HH:MM )
//
// with month 1–12, the day valid for its month in the proleptic Gregorian
// calendar, hour ≤ 23, minute and second ≤ 59 (no leap second) and offset
// hours ≤ 23, minutes ≤ 59. It is hand-written because time.Parse accepts
// and refuses other things (lowercase t and z, leap seconds, the digit
// counts).
func UnixOf(s string) (int64, bool) {
	b := []byte(s)
	if len(b) < 20 {
		return 0, false
	}
	num := func(at, n int) (int64, bool) {
		var v int64
		for i := at; i < at+n; i++ {
			if b[i] < '0' || b[i] > '9' {
				return 0, false
			}
			v = v*10 + int64(b[i]-'0')
		}
		return v, true
	}
	y, ok1 := num(0, 4)
	mo, ok2 := num(5, 2)
	d, ok3 := num(8, 2)
	hh, ok4 := num(11, 2)
	mm, ok5 := num(14, 2)
	ss, ok6 := num(17, 2)
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6) ||
		b[4] != '-' || b[7] != '-' || (b[10] != 'T' && b[10] != 't') || b[13] != ':' || b[16] != ':' {
		return 0, false
	}
	i := 19
	if i < len(b) && b[i] == '.' {
		j := i + 1
		for j < len(b) && b[j] >= '0' && b[j] <= '9' {
			j++
		}
		if digits := j - i - 1; digits < 1 || digits > 9 {
			return 0, false
		}
		i = j
	}
	var offset int64
	switch rest := b[i:]; {
	case len(rest) == 1 && (rest[0] == 'Z' || rest[0] == 'z'):
	case len(rest) == 6 && (rest[0] == '+' || rest[0] == '-') && rest[3] == ':':
		oh, ok1 := num(i+1, 2)
		om, ok2 := num(i+4, 2)
		if !ok1 || !ok2 || oh > 23 || om > 59 {
			return 0, false
		}
		offset = oh*3600 + om*60
		if rest[0] == '-' {
			offset = -offset
		}
	default:
		return 0, false
	}
	if mo < 1 || mo > 12 || hh > 23 || mm > 59 || ss > 59 {
		return 0, false
	}
	if d < 1 || d > daysIn(y, mo) {
		return 0, false
	}
	return daysFromCivil(y, mo, d)*86400 + hh*3600 + mm*60 + ss - offset, true
}

func daysIn(y, m int64) int64 {
	switch m {
	case 2:
		if (y%4 == 0 && y%100 != 0) || y%400 == 0 {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// daysFromCivil counts days from 1970-01-01 to y-m-d in the proleptic
// Gregorian calendar, with March as the first month of the computational
// year so that the leap day falls at its end.
func daysFromCivil(y, m, d int64) int64 {
	if m <= 2 {
		y--
	}
	era := y / 400
	if y < 0 { // only January and February of year 0000: floor, not truncate
		era = (y - 399) / 400
	}
	yearOfEra := y - era*400
	shifted := m - 3
	if m <= 2 {
		shifted = m + 9
	}
	dayOfYear := (153*shifted+2)/5 + d - 1
	dayOfEra := yearOfEra*365 + yearOfEra/4 - yearOfEra/100 + dayOfYear
	return era*146097 + dayOfEra - 719468
}
