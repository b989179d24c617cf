"""Emulator of the Strimzi cluster operator's connector reconcile and offsets handling (see README.md here).

Independent of the ``kubectl_offsets`` package on purpose: it is a second implementation of Strimzi's behaviour
(research/strimzi-offsets.md §1-§3) so that the plugin's tests can catch the plugin's mistakes.
"""
