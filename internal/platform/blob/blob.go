// Package blob is the object store of tcs: transcript inputs, corrected content, change lists
// and webhook payloads live here, and Kubernetes resources hold their keys.
//
// Two backends exist: a directory on the local filesystem, and any S3-compatible object
// store. Both can hand out presigned upload URLs (see [Store.SignedPutURL]) so that clients
// send large objects straight to the store; on the filesystem backend the API server serves
// those uploads itself through [Store.UploadHandler].
package blob

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	neturl "net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	gcaws "gocloud.dev/aws"
	"gocloud.dev/blob"
	"gocloud.dev/blob/fileblob"
	"gocloud.dev/blob/s3blob"
	"gocloud.dev/gcerrors"
)

// ErrNotFound is returned for a key that holds no object.
var ErrNotFound = errors.New("blob: object not found")

// ErrNotSupported is returned for an operation the store's backend does not offer.
var ErrNotSupported = errors.New("blob: not supported by this backend")

// defaultS3Region is the signing region of an S3 store whose URL, environment and shared
// configuration name none; S3-compatible servers commonly accept it.
const defaultS3Region = "us-east-1"

// Options configures a store opened by [Open].
type Options struct {
	// SigningSecret signs filesystem upload URLs (HMAC); required to presign on the
	// filesystem backend.
	SigningSecret []byte
	// UploadBaseURL is where the API server serves filesystem uploads, e.g.
	// http://127.0.0.1:8080/uploads/. Required, with SigningSecret, to presign on the
	// filesystem backend.
	UploadBaseURL string
	// AccessKeyID and SecretAccessKey are optional static S3 credentials. When both are
	// empty the credentials come from the standard AWS environment variables and shared
	// configuration files.
	AccessKeyID, SecretAccessKey string
}

// Store reads and writes objects by key.
type Store struct {
	bucket *blob.Bucket
	// signer is the HMAC signer of the filesystem backend; nil on S3 and on a filesystem
	// store opened without a signing secret or upload base URL.
	signer *fileblob.URLSignerHMAC
	// s3 reports whether the store is an S3 bucket.
	s3 bool
}

// Open opens the store at url: a directory path or file:///dir (filesystem), or
// s3://BUCKET?endpoint=http://127.0.0.1:9000&region=us-east-1&use_path_style=true (any
// S3-compatible store; credentials from the standard AWS environment variables or from
// opts).
//
// The s3 URL also accepts disable_https (true or false) and the query parameters of
// gocloud.dev/aws.V2ConfigFromURLParams other than endpoint and hostname_immutable, such as
// profile. When no region is named anywhere, us-east-1 is used.
func Open(ctx context.Context, url string, opts Options) (*Store, error) {
	if rest, ok := strings.CutPrefix(url, "s3://"); ok {
		return openS3(ctx, rest, opts)
	}
	dir, ok := strings.CutPrefix(url, "file://")
	if !ok && strings.Contains(url, "://") {
		return nil, fmt.Errorf("blob: unsupported store URL %q (want a directory, file:///dir or s3://bucket)", url)
	}
	if !ok {
		dir = url
	}
	return openDir(dir, opts)
}

// OpenDir opens a filesystem store rooted at dir, creating dir when it is missing. The
// store cannot presign uploads; use [Open] with [Options] for that.
func OpenDir(dir string) (*Store, error) {
	return openDir(dir, Options{})
}

// openDir opens a filesystem store rooted at dir that signs upload URLs when opts holds
// both a signing secret and an upload base URL.
func openDir(dir string, opts Options) (*Store, error) {
	var signer *fileblob.URLSignerHMAC
	if opts.UploadBaseURL != "" {
		base, err := neturl.Parse(opts.UploadBaseURL)
		if err != nil {
			return nil, fmt.Errorf("blob: parsing the upload base URL: %w", err)
		}
		if (base.Scheme != "http" && base.Scheme != "https") || base.Host == "" {
			return nil, fmt.Errorf("blob: upload base URL %q is not an absolute http(s) URL", opts.UploadBaseURL)
		}
		if len(opts.SigningSecret) > 0 {
			signer = fileblob.NewURLSignerHMAC(base, opts.SigningSecret)
		}
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("blob: resolving %s: %w", dir, err)
	}
	if err := os.MkdirAll(abs, 0o750); err != nil {
		return nil, fmt.Errorf("blob: creating %s: %w", abs, err)
	}
	// Nothing reads an object's content type or metadata back, and a sidecar file of them
	// would double the files each write creates.
	fo := &fileblob.Options{NoTempDir: true, Metadata: fileblob.MetadataDontWrite}
	if signer != nil {
		fo.URLSigner = signer
	}
	b, err := fileblob.OpenBucket(abs, fo)
	if err != nil {
		return nil, fmt.Errorf("blob: opening %s: %w", abs, err)
	}
	return &Store{bucket: b, signer: signer}, nil
}

// openS3 opens the S3 bucket named by rest, the part of an s3:// URL after the scheme.
func openS3(ctx context.Context, rest string, opts Options) (*Store, error) {
	u, err := neturl.Parse("s3://" + rest)
	if err != nil {
		return nil, fmt.Errorf("blob: parsing the store URL: %w", err)
	}
	if u.Host == "" {
		return nil, errors.New("blob: the s3 store URL names no bucket (want s3://BUCKET?...)")
	}
	if u.Path != "" && u.Path != "/" {
		return nil, fmt.Errorf("blob: the s3 store URL has a path %q; key prefixes are not supported", u.Path)
	}
	if (opts.AccessKeyID == "") != (opts.SecretAccessKey == "") {
		return nil, errors.New("blob: static S3 credentials need both an access key ID and a secret access key")
	}

	q := u.Query()
	endpoint := q.Get("endpoint")
	q.Del("endpoint")
	if q.Has("hostname_immutable") {
		return nil, errors.New("blob: the s3 store URL parameter hostname_immutable is not supported (use use_path_style)")
	}
	var pathStyle, disableHTTPS bool
	for _, p := range []struct {
		name string
		dst  *bool
	}{{"use_path_style", &pathStyle}, {"s3ForcePathStyle", &pathStyle}, {"disable_https", &disableHTTPS}} {
		if !q.Has(p.name) {
			continue
		}
		v, err := strconv.ParseBool(q.Get(p.name))
		if err != nil {
			return nil, fmt.Errorf("blob: the s3 store URL parameter %s: %w", p.name, err)
		}
		*p.dst = v
		q.Del(p.name)
	}
	if endpoint != "" {
		e, err := neturl.Parse(endpoint)
		if err != nil || (e.Scheme != "http" && e.Scheme != "https") || e.Host == "" {
			return nil, fmt.Errorf("blob: the s3 endpoint %q is not an absolute http(s) URL", endpoint)
		}
	}

	cfg, err := gcaws.V2ConfigFromURLParams(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("blob: configuring S3 for bucket %s: %w", u.Host, err)
	}
	if cfg.Region == "" {
		cfg.Region = defaultS3Region
	}
	if opts.AccessKeyID != "" {
		cfg.Credentials = aws.NewCredentialsCache(
			credentials.NewStaticCredentialsProvider(opts.AccessKeyID, opts.SecretAccessKey, ""))
	}
	client := s3.NewFromConfig(cfg, func(o *s3.Options) {
		if endpoint != "" {
			o.BaseEndpoint = aws.String(endpoint)
		}
		o.UsePathStyle = pathStyle
		o.EndpointOptions.DisableHTTPS = disableHTTPS
	})
	b, err := s3blob.OpenBucket(ctx, client, u.Host, &s3blob.Options{
		// The upload manager does not read the client's setting; pass it on as
		// s3blob's own URL opener does.
		RequestChecksumCalculation: cfg.RequestChecksumCalculation,
	})
	if err != nil {
		return nil, fmt.Errorf("blob: opening bucket %s: %w", u.Host, err)
	}
	return &Store{bucket: b, s3: true}, nil
}

// Put writes data under key, replacing any object there.
func (s *Store) Put(ctx context.Context, key string, data []byte, contentType string) error {
	if err := s.bucket.WriteAll(ctx, key, data, &blob.WriterOptions{ContentType: contentType}); err != nil {
		return fmt.Errorf("blob: writing %s: %w", key, err)
	}
	return nil
}

// Get reads the object under key; it returns ErrNotFound when there is none.
func (s *Store) Get(ctx context.Context, key string) ([]byte, error) {
	data, err := s.bucket.ReadAll(ctx, key)
	if err != nil {
		return nil, wrap("reading", key, err)
	}
	return data, nil
}

// NewReader opens the object under key for streaming; it returns ErrNotFound when there is none.
func (s *Store) NewReader(ctx context.Context, key string) (io.ReadCloser, error) {
	r, err := s.bucket.NewReader(ctx, key, nil)
	if err != nil {
		return nil, wrap("reading", key, err)
	}
	return r, nil
}

// Size returns the size of the object under key (ErrNotFound when missing).
func (s *Store) Size(ctx context.Context, key string) (int64, error) {
	a, err := s.bucket.Attributes(ctx, key)
	if err != nil {
		return 0, wrap("inspecting", key, err)
	}
	return a.Size, nil
}

// Exists reports whether an object is stored under key.
func (s *Store) Exists(ctx context.Context, key string) (bool, error) {
	ok, err := s.bucket.Exists(ctx, key)
	if err != nil {
		return false, fmt.Errorf("blob: checking %s: %w", key, err)
	}
	return ok, nil
}

// Delete removes the object under key; a missing object is no error.
func (s *Store) Delete(ctx context.Context, key string) error {
	if err := s.bucket.Delete(ctx, key); err != nil && gcerrors.Code(err) != gcerrors.NotFound {
		return fmt.Errorf("blob: deleting %s: %w", key, err)
	}
	return nil
}

// DeletePrefix removes every object whose key starts with prefix, which must end with "/";
// objects missing meanwhile are no error.
func (s *Store) DeletePrefix(ctx context.Context, prefix string) error {
	if !strings.HasSuffix(prefix, "/") {
		return fmt.Errorf("blob: deleting under %q: the prefix must end with /", prefix)
	}
	it := s.bucket.List(&blob.ListOptions{Prefix: prefix})
	for {
		obj, err := it.Next(ctx)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("blob: listing under %s: %w", prefix, err)
		}
		if obj.IsDir {
			continue
		}
		if err := s.Delete(ctx, obj.Key); err != nil {
			return err
		}
	}
}

// SignedPutURL returns a short-lived URL that accepts exactly one PUT of an object under
// key with Content-Type contentType, and the headers the PUT must send.
//
// The URL is bound to the method, the key, the content type and the expiry: a request that
// changes any of them is refused. It is not bound to a single use: until it expires, the
// URL may be used again, each PUT replacing the object. expiry must be positive; S3 limits
// it to seven days. On the filesystem backend the store must have been opened with
// [Options.SigningSecret] and [Options.UploadBaseURL], and the API server must serve
// [Store.UploadHandler] there.
func (s *Store) SignedPutURL(ctx context.Context, key, contentType string, expiry time.Duration) (url string, headers map[string]string, err error) {
	if contentType == "" {
		return "", nil, errors.New("blob: signing an upload URL needs a content type")
	}
	if expiry <= 0 {
		return "", nil, fmt.Errorf("blob: signing an upload URL needs a positive expiry, not %v", expiry)
	}
	opts := &blob.SignedURLOptions{Method: http.MethodPut, Expiry: expiry}
	if s.s3 {
		// s3blob refuses SignedURLOptions.ContentType for PUT; setting it on the request
		// before signing makes Content-Type a signed header all the same.
		opts.BeforeSign = func(as func(any) bool) error {
			var in *s3.PutObjectInput
			if !as(&in) {
				return errors.New("blob: the S3 driver did not expose the PutObject input to sign")
			}
			in.ContentType = aws.String(contentType)
			return nil
		}
	} else {
		if s.signer == nil {
			return "", nil, errors.New("blob: this filesystem store cannot sign upload URLs (open it with a signing secret and an upload base URL)")
		}
		opts.ContentType = contentType
	}
	u, err := s.bucket.SignedURL(ctx, key, opts)
	if err != nil {
		return "", nil, fmt.Errorf("blob: signing an upload URL for %s: %w", key, err)
	}
	return u, map[string]string{"Content-Type": contentType}, nil
}

// Close releases the store.
func (s *Store) Close() error {
	return s.bucket.Close()
}

// wrap annotates err from doing op on key, turning a missing object into ErrNotFound.
func wrap(op, key string, err error) error {
	if gcerrors.Code(err) == gcerrors.NotFound {
		return fmt.Errorf("blob: %s %s: %w", op, key, ErrNotFound)
	}
	return fmt.Errorf("blob: %s %s: %w", op, key, err)
}
