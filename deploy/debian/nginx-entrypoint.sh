#!/bin/sh
# The official nginx image's template step: each /etc/nginx/templates/NAME.template becomes
# /etc/nginx/conf.d/NAME with the environment's variables put in. Only variables the environment
# has are replaced, so nginx's own ($host, $scheme, ...) stay as they are.
set -eu
if [ -d /etc/nginx/templates ]; then
    defined="$(env | sed -n 's/^\([A-Za-z_][A-Za-z0-9_]*\)=.*/${\1}/p' | tr '\n' ' ')"
    for template in /etc/nginx/templates/*.template; do
        [ -e "$template" ] || continue
        name="$(basename "$template" .template)"
        envsubst "$defined" <"$template" >"/etc/nginx/conf.d/$name"
    done
fi
exec "$@"
