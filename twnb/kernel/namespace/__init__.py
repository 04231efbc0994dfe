"""The namespace: the variables a run changed, the summary a prompt reads (secrets screened out, lazy
frames never computed), the data libraries this kernel has, and the user's own cells."""
