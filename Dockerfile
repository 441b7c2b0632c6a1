# Builds the single tcs binary into a small, non-root image.
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o /out/tcs ./cmd/tcs

FROM gcr.io/distroless/static:nonroot
COPY --from=build /out/tcs /tcs
USER 65532:65532
ENTRYPOINT ["/tcs"]
CMD ["run"]
