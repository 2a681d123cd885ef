# baton in a container: a static, stripped binary on a distroless base,
# running as a non-root user. The database lives in the /data volume.
#   docker build -t baton .
#   docker run -p 7420:7420 -v baton-data:/data baton
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
# the patched jsonata-go that go.mod replaces (third_party/jsonata-go/NOTE.md)
COPY third_party/ third_party/
RUN go mod download
COPY . .
ARG VERSION=dev
RUN CGO_ENABLED=0 go build -trimpath -buildvcs=auto -ldflags "-s -w -X main.version=${VERSION}" -o /out/baton ./cmd/baton \
	&& mkdir -p /out/data

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/baton /usr/local/bin/baton
COPY --from=build --chown=65532:65532 /out/data /data
USER 65532:65532
VOLUME /data
EXPOSE 7420
ENTRYPOINT ["/usr/local/bin/baton", "--db", "/data/baton.db"]
# Listening beyond loopback needs bearer tokens (baton agent create ...) and
# the host name clients use: add --allowed-host NAME.
CMD ["serve", "--addr", "0.0.0.0:7420"]
