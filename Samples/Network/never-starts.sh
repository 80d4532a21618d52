#!/bin/sh
# ServeProcessTests: a "hotels serve" that never says its endpoint. A file in the tree, not one a test writes:
# a file written while other tests start children can be held open by one of them, and then cannot be run (ETXTBSY).
exec sleep 3600
