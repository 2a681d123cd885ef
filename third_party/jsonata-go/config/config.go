package config

var defaultDivisionPrecision int32 = 8

func GetDivisionPrecision() int32 {
	return defaultDivisionPrecision
}
