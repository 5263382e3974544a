// Command k8s-schemas-strict reads Kubernetes manifests (multi-document YAML) on stdin and decodes
// each built-in object strictly into its Go type, as the API server does under strict field
// validation (kubectl's default): unknown fields, duplicate fields and wrong types are errors.
// kubernetes-models checks the OpenAPI schemas but lets unknown fields through; this closes that gap.
// It prints one JSON line per document: {"kind", "name", "error"} ("" when accepted, "unregistered"
// for kinds it does not know, such as Dapr's, which test/support/k8s-schemas.ts checks instead).
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
)

type result struct {
	Kind  string `json:"kind"`
	Name  string `json:"name"`
	Error string `json:"error"`
}

func main() {
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{
		appsv1.AddToScheme, autoscalingv2.AddToScheme, corev1.AddToScheme, networkingv1.AddToScheme, policyv1.AddToScheme,
	} {
		if err := add(scheme); err != nil {
			fail(err)
		}
	}
	decoder := serializer.NewCodecFactory(scheme, serializer.EnableStrict).UniversalDeserializer()
	reader := utilyaml.NewYAMLReader(bufio.NewReader(os.Stdin))
	out := json.NewEncoder(os.Stdout)
	for {
		doc, err := reader.Read()
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			fail(err)
		}
		if len(bytes.TrimSpace(doc)) == 0 {
			continue
		}
		// The YAML is decoded as it is written, duplicate keys included (the JSON form would drop them).
		var meta struct {
			Kind     string `json:"kind"`
			Metadata struct {
				Name string `json:"name"`
			} `json:"metadata"`
		}
		r := result{}
		if err := utilyaml.Unmarshal(doc, &meta); err == nil {
			r.Kind, r.Name = meta.Kind, meta.Metadata.Name
		}
		if meta.Kind == "" {
			continue // a document of comments only
		}
		if _, _, err := decoder.Decode(doc, nil, nil); err != nil {
			if runtime.IsNotRegisteredError(err) {
				r.Error = "unregistered"
			} else {
				r.Error = err.Error()
			}
		}
		if err := out.Encode(r); err != nil {
			fail(err)
		}
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "k8s-schemas-strict:", err)
	os.Exit(1)
}
