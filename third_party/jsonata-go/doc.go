// Copyright 2018 Blues Inc.  All rights reserved.
// Use of this source code is governed by licenses granted by the
// copyright holder including that found in the LICENSE file.

// Package jsonata is a query and transformation language for JSON.
// It's a Go port of the JavaScript library JSONata. Please use the
// official JSONata site as a language reference.
//
// http://jsonata.org/
package jsonata
